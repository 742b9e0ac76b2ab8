import { randomUUID } from 'node:crypto';
import { ModelCapacityWait, nextTry, PARK_AFTER_MS, roomWaitMs, slotLeaseMs } from '@tierflow/runtime/policy';
import { DEFAULT_PRIORITY } from '@tierflow/protocol';
import type { ModelLimit, ModelLimiter, ModelParking, ModelWaiter } from '@tierflow/runtime/policy';
import { abortableDelay, abortError } from '../abortable-delay.js';
import { SpecialistThrottledError } from '../specialist.js';

/** A granted request: settled once, however it ended. */
export interface ModelPermit {
  /** `used`: the tokens the server reported (null: none, the estimate stands); `unsent`: the request never left. Never throws. */
  settle(used: number | null, unsent: boolean): Promise<void>;
}

const NOTHING_HELD: ModelPermit = { settle: () => Promise.resolve() };

/** Where a call waits for its model: the deployment's limiter (none: nothing shared), the limits, and what bounds the wait. */
export interface AdmissionTerms {
  readonly limiter: ModelLimiter | undefined;
  /** Whose call it is, for taking turns; left out, a run of its own at the default priority. */
  readonly waiter?: ModelWaiter | undefined;
  /** While it is available, a wait of {@link PARK_AFTER_MS} or more parks the pass instead of being waited here. */
  readonly parking?: ModelParking | undefined;
  readonly limit: ModelLimit;
  readonly model: string;
  /** The tokens the request reserves: its prompt's estimate and its output limit. */
  readonly tokens: number;
  readonly signal: AbortSignal;
  readonly deadline: number | null;
  /** Told of each wait, for the call's record. */
  readonly onWait?: (ms: number, reason: string) => void;
}

/**
 * Waits until the model's shared limits let one request through, in its turn: reserve, and while
 * refused wait what the limiter says (cancellable by `signal`) and reserve again. A wait that would
 * pass the deadline answers `throttled` at once, so the Dispatcher can route elsewhere while there
 * is time; a call that stops waiting (that, or a cancel) gives its place up at once. A long wait
 * (a window to slide, a busy server's pause) parks the pass instead while its parking is
 * available: the call keeps its place in turn, under the parking's id, for when the job comes back.
 * A call refused a concurrent slot, or behind others for one, sleeps until a settle names it
 * where the limiter hears of room (`waitForRoom`), else asks again on the limiter's short poll.
 *
 * @throws SpecialistThrottledError at the deadline, ModelCapacityWait to park, or the abort reason when `signal` fires.
 */
export async function admitted(terms: AdmissionTerms): Promise<ModelPermit> {
  const { limiter, limit, model } = terms;
  if (!limiter) return NOTHING_HELD;
  const parking = terms.parking?.available() ? terms.parking : undefined;
  const id = parking?.id ?? randomUUID();
  const waiter = terms.waiter ?? { run: id, priority: DEFAULT_PRIORITY };
  try {
    const permit = await waitForTurn(terms, limiter, id, waiter, parking);
    parking?.granted();
    return permit;
  } catch (error) {
    if (error instanceof ModelCapacityWait) throw error;
    // Its place in turn, given up: those behind it need not wait for it to lapse.
    await limiter.settle(model, limit, id, null, true).catch(() => undefined);
    throw error;
  }
}

async function waitForTurn(terms: AdmissionTerms, limiter: ModelLimiter, id: string, waiter: ModelWaiter, parking: ModelParking | undefined): Promise<ModelPermit> {
  const { limit, model } = terms;
  for (;;) {
    const admission = await limiter.reserve(model, limit, id, terms.tokens, slotLeaseMs(Date.now(), terms.deadline), waiter);
    if (admission.granted) {
      return {
        settle: async (used, unsent) => {
          try {
            await limiter.settle(model, limit, id, used, unsent);
          } catch {
            // A slot not released lapses with its lease; the tokens leave with the window.
          }
        },
      };
    }
    const next = nextTry(admission, Date.now(), terms.deadline);
    if (next.kind === 'throttled') {
      throw new SpecialistThrottledError(
        `${model}: ${admission.reason === 'paused' ? 'paused' : admission.reason === 'queued' ? 'others’ turns before it' : `over its shared ${admission.reason} limit`} until past the deadline`,
      );
    }
    if (limiter.waitForRoom && limit.concurrent !== null && (admission.reason === 'concurrent' || admission.reason === 'queued')) {
      // A settle names the waiters it makes room for: sleep until then, not a poll (RoomWaits).
      const started = Date.now();
      await limiter.waitForRoom(id, roomWaitMs(next.ms, started, terms.deadline), terms.signal);
      terms.onWait?.(Date.now() - started, admission.reason);
      if (terms.signal.aborted) throw abortError(terms.signal);
      continue;
    }
    terms.onWait?.(next.ms, admission.reason);
    if (parking && next.ms >= PARK_AFTER_MS) throw new ModelCapacityWait(model, Date.now() + next.ms, admission.reason);
    await abortableDelay(next.ms, terms.signal);
  }
}
