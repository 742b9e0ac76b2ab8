import { describe, expect, it } from 'vitest';
import { isLoopback, resolveServerOptions } from './server-options.js';

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
