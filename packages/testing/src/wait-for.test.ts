import { describe, expect, it } from 'vitest';
import { waitFor } from './wait-for.js';

describe('waitFor', () => {
  it('returns the first truthy value', async () => {
    let calls = 0;
    const value = await waitFor(() => (++calls >= 3 ? { calls } : null), { intervalMs: 1 });
    expect(value).toEqual({ calls: 3 });
  });

  it('awaits an async probe and treats a throw as "not yet"', async () => {
    let calls = 0;
    const value = await waitFor(
      async () => {
        calls++;
        if (calls < 3) throw new Error('not yet');
        return Promise.resolve('ready');
      },
      { intervalMs: 1 },
    );
    expect(value).toBe('ready');
  });

  it('times out naming the description and the last value', async () => {
    await expect(waitFor(() => 0, { timeoutMs: 50, intervalMs: 5, description: 'the counter to move' })).rejects.toThrow(/timed out after 50 ms waiting for the counter to move; last value: 0/);
  });

  it('times out naming the last error', async () => {
    const failing = (): never => {
      throw new Error('connection refused');
    };
    await expect(waitFor(failing, { timeoutMs: 30, intervalMs: 5, description: 'Redis' })).rejects.toThrow(/waiting for Redis; last error: connection refused/);
  });

  it('does not let a hanging probe outlive the deadline', async () => {
    const started = Date.now();
    await expect(waitFor(() => new Promise<never>(() => undefined), { timeoutMs: 50, description: 'a hang' })).rejects.toThrow(/waiting for a hang; the probe never returned/);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
