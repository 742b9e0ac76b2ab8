import { delegationPayloadSchema, ERROR_TYPES, formatValidationError, outcomePayloadSchema, TierflowError, validateWith } from '@tierflow/protocol';
import type { Handoff, HandoffEnd, HandoffInterceptor, HandoffNext } from '../policy/handoff.js';

/** A handoff refused by an interceptor: the job answers `failed` with this error's code and message. */
export class HandoffRefusedError extends TierflowError {
  override readonly name = 'HandoffRefusedError';

  constructor(
    /** The interceptor that refused. */
    readonly interceptor: string,
    handoff: Pick<Handoff, 'kind' | 'id' | 'from' | 'to'>,
    reason: string,
    cause?: unknown,
  ) {
    super(`${interceptor} refused the ${handoff.kind} ${handoff.id} from ${handoff.from} to ${handoff.to}: ${reason}`, { code: ERROR_TYPES.handoffRefused, cause });
  }
}

/** The handoff after every interceptor of a chain has had it; rejects with {@link HandoffRefusedError}. */
export type HandoffChain = (handoff: Handoff) => Promise<Handoff>;

/**
 * The interceptors' hooks for one end of a handoff, composed: the first interceptor runs first
 * and calls the next through `next`. Null when none hooks that end, so a deployment without
 * interceptors runs no chain at all: nothing is called, awaited or checked per hop.
 */
export function composeHandoffChain(interceptors: readonly HandoffInterceptor[], end: HandoffEnd): HandoffChain | null {
  const hooks = interceptors.flatMap((interceptor) => {
    const hook = interceptor[end];
    return hook ? [{ name: interceptor.name, hook }] : [];
  });
  if (hooks.length === 0) return null;
  const step = (index: number): HandoffNext => {
    const entry = hooks[index];
    if (!entry) return (handoff) => Promise.resolve(handoff);
    const next = step(index + 1);
    return async (handoff) => {
      let result: unknown;
      try {
        // What it passes on is checked before the rest of the chain sees it, and what it returns after.
        result = await entry.hook(handoff, (passed) => next(checkedResult(entry.name, handoff, passed)));
      } catch (error) {
        // A refusal further down the chain stays that interceptor's.
        if (error instanceof HandoffRefusedError) throw error;
        throw new HandoffRefusedError(entry.name, handoff, error instanceof Error ? error.message : String(error), error);
      }
      return checkedResult(entry.name, handoff, result);
    };
  };
  return step(0);
}

/**
 * What an interceptor returned, if it is the handoff it was given with at most its payload
 * changed, and that payload valid (checked only when it changed).
 *
 * @throws HandoffRefusedError naming the interceptor and what is wrong.
 */
function checkedResult(name: string, given: Handoff, result: unknown): Handoff {
  if (typeof result !== 'object' || result === null) throw new HandoffRefusedError(name, given, 'it returned no handoff (a hook returns what `next` gives it)');
  const returned = result as Handoff;
  for (const field of ['kind', 'id', 'from', 'to'] as const) {
    if (returned[field] !== given[field]) throw new HandoffRefusedError(name, given, `it changed the handoff's ${field}; only its payload may change`);
  }
  if (returned.payload === given.payload) return returned;
  const checked = returned.kind === 'delegation' ? validateWith(delegationPayloadSchema, returned.payload) : validateWith(outcomePayloadSchema, returned.payload);
  if (!checked.ok) throw new HandoffRefusedError(name, given, `the payload it returned is invalid: ${checked.errors.map(formatValidationError).join('; ')}`);
  return { ...returned, payload: checked.value } as Handoff;
}

/** A worker's interceptor chains (docs/protocol.md#handoff-interceptors), composed once; null where no interceptor hooks that end. */
export interface HandoffChains {
  readonly send: HandoffChain | null;
  readonly receive: HandoffChain | null;
}

export function handoffChains(interceptors: readonly HandoffInterceptor[]): HandoffChains {
  return { send: composeHandoffChain(interceptors, 'send'), receive: composeHandoffChain(interceptors, 'receive') };
}
