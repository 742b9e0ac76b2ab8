import { describe, expect, it } from 'vitest';
import { parsePerfScript, perfShares } from './perf-stacks.js';

const SCRIPT = [
  '101 ',
  '\t         14dbd83 Builtins_LoadIC_Megamorphic',
  '\t    7f4ab39bac15 JS:*read file:///srv/app/packages/runtime/dist/engine/job-facts.js:38:15',
  '\t    7f4ab39a2b7b JS:*process file:///srv/app/packages/runtime/dist/engine/cell-worker.js:248:18',
  '',
  '101 ',
  '\t          c494db v8::internal::Scavenger::ScavengeObject<v8::internal::FullHeapObjectSlot>',
  '\t         14cde03 Builtins_JSEntry',
  '',
  '102 ',
  '\t          d1a2b3 v8::internal::ConcurrentMarking::RunMajor',
  '',
  '103 ',
  '\t          e1a2b3 v8::internal::compiler::GraphReducer::ReduceTop',
  '',
  '101 ',
  '\t          f00001 tcp_sendmsg',
  '\t          f00002 do_syscall_64',
  '\t          f00003 uv__io_poll',
  '',
  '101 ',
  '\t    7f4ab39bac15 JS:^returnReply file:///srv/app/node_modules/ioredis/built/DataHandler.js:50:16',
  '\t    7f4ab39bac16 JS:~onStreamRead node:internal/stream_base_commons:168:22',
  '',
  '101 ',
  '\t    7f4ab39bac17 JS:*parseObject :3:28',
  '',
].join('\n');

describe('parsePerfScript', () => {
  it('reads each sample’s thread and frames, innermost first', () => {
    const samples = parsePerfScript(SCRIPT);
    expect(samples).toHaveLength(7);
    expect(samples[0]).toEqual({
      thread: 101,
      frames: [
        'Builtins_LoadIC_Megamorphic',
        'JS:*read file:///srv/app/packages/runtime/dist/engine/job-facts.js:38:15',
        'JS:*process file:///srv/app/packages/runtime/dist/engine/cell-worker.js:248:18',
      ],
    });
    expect(samples[1]!.frames[0]).toBe('v8::internal::Scavenger::ScavengeObject<v8::internal::FullHeapObjectSlot>');
  });
});

describe('perfShares', () => {
  const shares = perfShares(parsePerfScript(SCRIPT), new Set([101]));
  const owner = (name: string): number | undefined => shares.owners.find((share) => share.name === name)?.share;

  it('charges a builtin to the JavaScript that called it, and a function to its package', () => {
    expect(owner('tierflow runtime')).toBeCloseTo(1 / 7);
    expect(owner('ioredis')).toBeCloseTo(1 / 7);
    expect(shares.functions.map((fn) => fn.name)).toEqual(['parseObject (made at run time)', 'read packages/runtime/dist/engine/job-facts.js', 'returnReply ioredis/built/DataHandler.js']);
  });

  it('names the collector, the optimizing compiler and system calls, on main and other threads', () => {
    expect(owner('main threads: garbage collection')).toBeCloseTo(1 / 7);
    expect(owner('other threads: garbage collection')).toBeCloseTo(1 / 7);
    expect(owner('other threads: optimizing compiler')).toBeCloseTo(1 / 7);
    expect(owner('main threads: system calls outside JavaScript')).toBeCloseTo(1 / 7);
    expect(owner('code made at run time')).toBeCloseTo(1 / 7);
  });

  it('shares add up to the samples taken', () => {
    expect(shares.samples).toBe(7);
    expect(shares.owners.reduce((total, share) => total + share.share, 0)).toBeCloseTo(1);
  });
});
