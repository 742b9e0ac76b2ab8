import { TierflowError } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { callWithRetry } from './call-with-retry.js';

const fast = { attempts: 3, baseDelayMs: 1, maxDelayMs: 2, jitter: 0 };

describe('callWithRetry', () => {
  it('retries a transient failure and returns the first success', async () => {
    const seen: number[] = [];
    const result = await callWithRetry(
      (attempt) => {
        seen.push(attempt);
        return attempt < 3 ? Promise.reject(new Error('busy')) : Promise.resolve('done');
      },
      { retry: fast },
    );
    expect(result).toBe('done');
    expect(seen).toEqual([1, 2, 3]);
  });

  it('gives up after the attempts, with the last error', async () => {
    let calls = 0;
    await expect(callWithRetry(() => Promise.reject(new Error(`busy ${++calls}`)), { retry: fast })).rejects.toThrow('busy 3');
  });

  it('does not retry a permanent error', async () => {
    let calls = 0;
    const call = (): Promise<never> => {
      calls++;
      return Promise.reject(TierflowError.permanent('no such model', { code: 'not_found', kind: 'not_found' }));
    };
    await expect(callWithRetry(call, { retry: fast })).rejects.toThrow('no such model');
    expect(calls).toBe(1);
  });

  it('stops when the signal fires', async () => {
    const controller = new AbortController();
    let calls = 0;
    const call = (): Promise<never> => {
      calls++;
      controller.abort(new Error('cancelled'));
      return Promise.reject(new Error('busy'));
    };
    await expect(callWithRetry(call, { retry: { ...fast, attempts: 10 }, signal: controller.signal })).rejects.toThrow();
    expect(calls).toBe(1);
  });
});
