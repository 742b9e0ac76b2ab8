import { afterEach, describe, expect, it, vi } from 'vitest';
import { abortableDelay, abortError } from './abortable-delay.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('abortableDelay', () => {
  it('resolves after the delay, and lets go of the signal', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const remove = vi.spyOn(controller.signal, 'removeEventListener');
    let done = false;
    const delay = abortableDelay(1000, controller.signal).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await delay;
    expect(done).toBe(true);
    expect(remove).toHaveBeenCalledWith('abort', expect.any(Function));
  });

  it('rejects when the signal aborts, and clears its timer', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const delay = abortableDelay(60_000, controller.signal);
    controller.abort();
    await expect(delay).rejects.toMatchObject({ name: 'AbortError' });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects at once for a signal that has already aborted', async () => {
    const reason = new Error('gone');
    await expect(abortableDelay(60_000, AbortSignal.abort(reason))).rejects.toBe(reason);
  });
});

describe('abortError', () => {
  it('is the reason when that is an Error', () => {
    const reason = new Error('stop');
    expect(abortError(AbortSignal.abort(reason))).toBe(reason);
  });

  it('wraps any other reason in an AbortError that keeps it as cause', () => {
    const error = abortError(AbortSignal.abort('deadline'));
    expect(error).toMatchObject({ name: 'AbortError', message: 'aborted: deadline', cause: 'deadline' });
    expect(abortError(AbortSignal.abort(42))).toMatchObject({ name: 'AbortError', message: 'aborted', cause: 42 });
  });
});
