import type { Profiler } from 'node:inspector';
import { describe, expect, it } from 'vitest';
import { callerShares, ownerOf, profileShares } from './profile-owners.js';

const frame = (functionName: string, url: string): Profiler.ProfileNode['callFrame'] => ({ functionName, url, scriptId: '0', lineNumber: 9, columnNumber: 0 });

describe('ownerOf', () => {
  it.each([
    ['file:///srv/app/node_modules/ioredis/built/Command.js', 'ioredis'],
    ['file:///srv/app/node_modules/@opentelemetry/sdk-trace/build/src/Tracer.js', '@opentelemetry/sdk-trace'],
    ['file:///srv/app/node_modules/bullmq/node_modules/semver/index.js', 'bullmq'],
    ['file:///srv/app/packages/runtime/dist/tier-worker.js', 'tierflow runtime'],
    ['file:///srv/app/apps/dispatcher/dist/policy.js', 'tierflow app dispatcher'],
    ['node:internal/streams/readable', 'node:streams'],
    ['node:net', 'node:net'],
  ])('charges %s to %s', (url, owner) => {
    expect(ownerOf(frame('f', url))).toBe(owner);
  });

  it('names the garbage collector and native code', () => {
    expect(ownerOf(frame('(garbage collector)', ''))).toBe('garbage collection');
    expect(ownerOf(frame('writeUtf8String', ''))).toMatch(/^native/);
  });
});

describe('profileShares', () => {
  it('counts self samples, leaves idle time out, and ranks owners and functions', () => {
    const profile: Profiler.Profile = {
      nodes: [
        { id: 1, callFrame: frame('(root)', '') },
        { id: 2, callFrame: frame('(idle)', '') },
        { id: 3, callFrame: frame('parse', 'file:///a/node_modules/zod/v4/core/schemas.js') },
        { id: 4, callFrame: frame('run', 'file:///a/packages/runtime/dist/tier-worker.js') },
      ],
      startTime: 0,
      endTime: 1,
      samples: [2, 2, 3, 3, 3, 4],
    };
    const shares = profileShares([profile, profile]);
    expect(shares.busySamples).toBe(8);
    expect(shares.owners).toEqual([
      { name: 'zod', share: 0.75 },
      { name: 'tierflow runtime', share: 0.25 },
    ]);
    expect(shares.functions[0]).toEqual({ name: 'parse zod/v4/core/schemas.js:10', share: 0.75 });
    expect(shares.functions[1]?.name).toBe('run packages/runtime/dist/tier-worker.js:10');
  });

  it('charges code made at run time (no file, no name) to its caller', () => {
    const profile: Profiler.Profile = {
      nodes: [
        { id: 1, callFrame: frame('(root)', ''), children: [2] },
        { id: 2, callFrame: frame('parse', 'file:///a/node_modules/zod/v4/core/schemas.js'), children: [3] },
        { id: 3, callFrame: frame('', '') },
      ],
      startTime: 0,
      endTime: 1,
      samples: [3, 3],
    };
    expect(profileShares([profile]).owners).toEqual([{ name: 'zod', share: 1 }]);
  });
});

describe('callerShares', () => {
  it("charges an owner's samples to the nearest two Tierflow frames that called it", () => {
    const profile: Profiler.Profile = {
      nodes: [
        { id: 1, callFrame: frame('(root)', ''), children: [2, 6] },
        { id: 2, callFrame: frame('answer', 'file:///a/packages/runtime/dist/engine/answer.js'), children: [3] },
        { id: 3, callFrame: frame('checkedPayload', 'file:///a/packages/runtime/dist/messages/messages.js'), children: [4] },
        { id: 4, callFrame: frame('validateWith', 'file:///a/packages/protocol/dist/validate.js'), children: [5] },
        { id: 5, callFrame: frame('parse', 'file:///a/node_modules/zod/v4/core/schemas.js') },
        { id: 6, callFrame: frame('parse', 'file:///a/node_modules/zod/v4/core/schemas.js') },
      ],
      startTime: 0,
      endTime: 1,
      samples: [5, 5, 5, 6, 2],
    };
    expect(callerShares([profile], 'zod')).toEqual([
      { name: 'validateWith packages/protocol/dist/validate.js:10 ← checkedPayload packages/runtime/dist/messages/messages.js:10', share: 0.6 },
      { name: '(no Tierflow caller)', share: 0.2 },
    ]);
  });
});
