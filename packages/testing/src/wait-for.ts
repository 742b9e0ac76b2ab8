import { setTimeout as sleep } from 'node:timers/promises';
import { inspect } from 'node:util';

/** How {@link waitFor} polls. */
export interface WaitForOptions {
  /** Give up after this long; 20 s unless given (a busy CI host can take seconds just to start a process). */
  readonly timeoutMs?: number;
  /** The pause between two probes; 20 ms unless given. */
  readonly intervalMs?: number;
  /** What is awaited, for the error on timeout, e.g. `'the job to complete'`. */
  readonly description?: string;
}

const NOT_SEEN = Symbol('not seen');
const TIMED_OUT = Symbol('timed out');

/**
 * Polls `probe` until it returns (or resolves to) a truthy value, and returns that value. A probe
 * that throws counts as "not yet". Tests use this instead of sleeping: it waits as long as needed
 * and no longer, and a deadline turns a hang into a readable failure.
 *
 * @throws Error on the deadline, naming `description` and the last value or error seen.
 */
export async function waitFor<T>(probe: () => T | Promise<T>, options: WaitForOptions = {}): Promise<NonNullable<T>> {
  const timeoutMs = options.timeoutMs ?? 20_000;
  const intervalMs = options.intervalMs ?? 20;
  const deadline = Date.now() + timeoutMs;
  let last: { value: unknown } | { error: unknown } | typeof NOT_SEEN = NOT_SEEN;

  for (;;) {
    const remaining = deadline - Date.now();
    try {
      // A probe that hangs must not outlive the deadline.
      const value = await within(Promise.resolve().then(probe), Math.max(remaining, 0));
      if (value === TIMED_OUT) break;
      if (value) return value;
      last = { value };
    } catch (error) {
      last = { error };
    }
    // One last probe at the deadline rather than giving up up to an interval early.
    const pause = Math.min(intervalMs, deadline - Date.now());
    if (pause <= 0) break;
    await sleep(pause);
  }
  throw new Error(`waitFor: timed out after ${timeoutMs} ms waiting for ${options.description ?? 'a truthy value'}; ${describeLast(last)}`);
}

/** `promise`, or {@link TIMED_OUT} if it has not settled after `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  const controller = new AbortController();
  try {
    return await Promise.race([promise, sleep(ms, TIMED_OUT, { signal: controller.signal })]);
  } finally {
    // Cancels the timer, so a finished wait leaves nothing behind to keep the process alive.
    controller.abort();
  }
}

function describeLast(last: { value: unknown } | { error: unknown } | typeof NOT_SEEN): string {
  if (last === NOT_SEEN) return 'the probe never returned';
  if ('error' in last) return `last error: ${last.error instanceof Error ? last.error.message : inspect(last.error)}`;
  return `last value: ${inspect(last.value, { depth: 3, breakLength: Infinity })}`;
}
