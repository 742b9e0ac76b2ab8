import { describe, expect, it } from 'vitest';
import { eitherSignal } from './either-signal.js';

describe('eitherSignal', () => {
  it('aborts with the reason of whichever source aborts first', () => {
    const [a, b] = [new AbortController(), new AbortController()];
    const either = eitherSignal(a.signal, b.signal);
    b.abort('lock lost');
    a.abort('cancelled');
    expect(either.signal.aborted).toBe(true);
    expect(either.signal.reason).toBe('lock lost');
  });

  it('is aborted at once when a source already is', () => {
    const a = new AbortController();
    a.abort('early');
    const either = eitherSignal(a.signal, new AbortController().signal);
    expect(either.signal.reason).toBe('early');
  });

  it('is the first signal itself when there is no second', () => {
    const a = new AbortController();
    expect(eitherSignal(a.signal, undefined).signal).toBe(a.signal);
  });

  it('after release, a source aborting no longer reaches it', () => {
    const [a, b] = [new AbortController(), new AbortController()];
    const either = eitherSignal(a.signal, b.signal);
    either.release();
    a.abort('late');
    expect(either.signal.aborted).toBe(false);
  });
});
