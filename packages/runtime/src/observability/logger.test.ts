import { describe, expect, it, vi } from 'vitest';
import type { TierLogger } from '../policy/handler.js';
import { consoleLogger, errorKind, repeatedWarnings, throttledWarning } from './logger.js';

describe('throttledWarning', () => {
  it('says the first warning, holds back the rest for the interval, then says how many it held', () => {
    const lines: [string, Record<string, unknown> | undefined][] = [];
    const log: TierLogger = { info: () => undefined, warn: (message, fields) => lines.push([message, fields]) };
    let now = 0;
    const warn = throttledWarning(log, 'bad notice', 1000, () => now);
    warn({ n: 1 });
    now = 500;
    warn({ n: 2 });
    warn({ n: 3 });
    now = 1500;
    warn({ n: 4 });
    expect(lines).toEqual([
      ['bad notice', { n: 1 }],
      ['bad notice', { n: 4, held_back: 2 }],
    ]);
  });
});

describe('repeatedWarnings', () => {
  it('throttles each kind on its own: a flood of one error does not hide the first of another', () => {
    const lines: [string, Record<string, unknown> | undefined][] = [];
    const log: TierLogger = { info: () => undefined, warn: (message, fields) => lines.push([message, fields]) };
    let now = 0;
    const warn = repeatedWarnings(log, 'worker error', 1000, () => now);
    for (let n = 0; n < 400; n++) warn('READONLY', { n });
    warn('NOPERM', { n: 'other' });
    now = 1000;
    warn('READONLY', { n: 'later' });
    expect(lines).toEqual([
      ['worker error', { n: 0 }],
      ['worker error', { n: 'other' }],
      ['worker error', { n: 'later', held_back: 399 }],
    ]);
  });
});

describe('errorKind', () => {
  it.each([
    ["READONLY You can't write against a read only replica. script: d96ca626", 'READONLY'],
    ["NOPERM User fleet has no permissions to run the 'del' command", 'NOPERM'],
    ['LOADING', 'LOADING'],
    ['Connection is closed.', 'Connection is closed.'],
    ['A sentence that starts with a capital', 'A sentence that starts with a capital'],
  ])('%s → %s', (message, kind) => {
    expect(errorKind(new Error(message))).toBe(kind);
  });
});

describe('consoleLogger', () => {
  it('is mute with TIERFLOW_LOG=silent, and logs with any other value rather than stop a process', () => {
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => written.push(String(chunk)) > 0);
    try {
      consoleLogger('t', { TIERFLOW_LOG: 'silent' }).warn('muted');
      consoleLogger('t', { TIERFLOW_LOG: 'loud' }).warn('said', { n: 1 });
      consoleLogger('t', {}).info('said too');
    } finally {
      spy.mockRestore();
    }
    expect(written).toHaveLength(2);
    expect(written[0]).toMatch(/ warn \[t\] said \{"n":1\}\n$/);
  });
});
