import { describe, expect, it } from 'vitest';
import { isLoopback, resolveServerOptions, serverOptionsFromEnv } from './server-options.js';

describe('isLoopback', () => {
  it('holds for the loopback addresses and localhost only', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', 'localhost', 'LOCALHOST', '[::1]']) expect([host, isLoopback(host)]).toEqual([host, true]);
  });

  it('does not hold for a name that merely starts with 127.', () => {
    for (const host of ['127.evil.example', '127.0.0.1.evil.example', '127.', '127.0.0.256', '0.0.0.0', '::', '10.0.0.1', 'localhost.evil.example']) {
      expect([host, isLoopback(host)]).toEqual([host, false]);
    }
  });
});

describe('resolveServerOptions', () => {
  it('will not serve 127.evil.example without a token: it is a name anyone may point anywhere', () => {
    expect(() => resolveServerOptions({ host: '127.evil.example' })).toThrow(/needs TIERFLOW_API_TOKEN/);
    expect(resolveServerOptions({ host: '127.0.0.2' }).token).toBeNull();
  });
});

describe('the A2A depth limit', () => {
  it.each([
    ['unset', {}, 1],
    ['0: no remote Tierflow may hand work here', { TIERFLOW_SERVE_A2A_MAX_DEPTH: '0' }, 0],
    ['3', { TIERFLOW_SERVE_A2A_MAX_DEPTH: '3' }, 3],
  ] as const)('is read from TIERFLOW_SERVE_A2A_MAX_DEPTH %s', (_, env, expected) => {
    expect(serverOptionsFromEnv(env).a2aMaxDepth).toBe(expected);
  });

  it('is refused out of bounds', () => {
    expect(() => serverOptionsFromEnv({ TIERFLOW_SERVE_A2A_MAX_DEPTH: '17' })).toThrow(/TIERFLOW_SERVE_A2A_MAX_DEPTH/);
    expect(() => resolveServerOptions({ a2aMaxDepth: -1 })).toThrow(/a2aMaxDepth/);
  });
});
