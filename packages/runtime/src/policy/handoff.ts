import type { DelegationPayload, OutcomePayload, TierName } from '@tierflow/protocol';
import type { SettledChild } from './handler.js';

/** Who a handoff is between: a tier, or `client` for whoever submitted the root and reads its outcome. */
export type HandoffParty = TierName | 'client';

interface HandoffBase {
  /** The message id: a delegation's own id (the root id for the root objective), an outcome's `<delegation id>.out`. */
  readonly id: string;
  readonly rootId: string;
  readonly from: HandoffParty;
  readonly to: HandoffParty;
  /** Fires when the work is cancelled or out of time: an interceptor that waits on something stops then. */
  readonly signal: AbortSignal;
}

/** Work handed down: a delegation, or the root objective as the Monitor receives it. */
export interface DelegationHandoff extends HandoffBase {
  readonly kind: 'delegation';
  readonly payload: DelegationPayload;
}

/** Work handed back up: an outcome. */
export interface OutcomeHandoff extends HandoffBase {
  readonly kind: 'outcome';
  readonly payload: OutcomePayload;
  /** The delegation this outcome answers. */
  readonly request: DelegationPayload;
  /** When sent by a tier that delegated: the outcomes of its last round, what its answer rests on. Empty otherwise. */
  readonly received: readonly SettledChild[];
}

/** One message crossing between two parties of a run, as an interceptor sees it (docs/protocol.md#handoff-interceptors). */
export type Handoff = DelegationHandoff | OutcomeHandoff;

/** The rest of the chain: the next interceptor, or at its end the runtime, which sends or reads the message. */
export type HandoffNext = (handoff: Handoff) => Promise<Handoff>;

/** What an interceptor does at one end of a handoff. */
export type HandoffHook = (handoff: Handoff, next: HandoffNext) => Promise<Handoff> | Handoff;

/**
 * Middleware on the handoffs a deployment's tiers make (as Temporal's interceptors wrap a
 * worker's calls). `send` runs in the sender's process before the message is signed and sent;
 * `receive` in the receiver's, after the message was checked and before its tier's policy reads
 * it. Each calls `next` with the handoff, changed or not, and returns what `next` returned (or a
 * change of it); only `payload` may change. Throwing refuses the handoff: nothing is sent, or
 * the message is not read, and the job answers `failed` with error_type `handoff_refused`.
 */
export interface HandoffInterceptor {
  /** Named in refusals, logs and span events. */
  readonly name: string;
  readonly send?: HandoffHook;
  readonly receive?: HandoffHook;
}

/** Which end of a handoff a chain runs at. */
export type HandoffEnd = 'send' | 'receive';

/** What is wrong with a value given as an interceptor, for the options' one check: none when it is one. Pure. */
export function interceptorProblems(value: unknown): string[] {
  if (typeof value !== 'object' || value === null) return ['must be an interceptor: { name, send?, receive? }'];
  const { name, send, receive } = value as Partial<Record<keyof HandoffInterceptor, unknown>>;
  const problems: string[] = [];
  if (typeof name !== 'string' || name.trim() === '') problems.push('name: must be a non-empty string');
  for (const [field, hook] of [
    ['send', send],
    ['receive', receive],
  ] as const) {
    if (hook !== undefined && typeof hook !== 'function') problems.push(`${field}: must be a function`);
  }
  if (send === undefined && receive === undefined) problems.push('must have a send or a receive hook');
  return problems;
}
