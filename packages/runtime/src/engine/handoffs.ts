import {
  delegationPayloadSchema,
  ERROR_TYPES,
  formatValidationError,
  tierBelow,
  validateWith,
  type DelegationMessage,
  type DelegationPayload,
  type OutcomeMessage,
  type TierName,
} from '@tierflow/protocol';
import type { Span } from '@opentelemetry/api';
import { HandoffRefusedError, type HandoffChain } from '../handoff/chain.js';
import { buildDelegation, refusedChildOutcome } from '../messages/messages.js';
import type { Assignment, SettledChild, TierLogger } from '../policy/handler.js';
import type { JobFacts } from './job-facts.js';
import type { Engine, Pass } from './pass.js';
import { applyEdits } from '../rerun/edits.js';

/**
 * A round's delegations as the send chain leaves them, one after another in the round's order;
 * one it changed is built and signed again.
 *
 * @throws HandoffRefusedError before anything is sent, when an interceptor refuses one.
 */
export async function sendDelegations(
  chain: HandoffChain,
  engine: Pick<Engine, 'tier' | 'signer' | 'runtime'>,
  pass: Pass,
  messages: readonly DelegationMessage[],
  now: number,
): Promise<readonly DelegationMessage[]> {
  const { rootId } = pass.assignment;
  const sent: DelegationMessage[] = [];
  for (const message of messages) {
    const handoff = await chain({ kind: 'delegation', id: message.id, rootId, from: engine.tier, to: message.target_tier, signal: pass.context.signal, payload: message.payload });
    const payload = handoff.payload as DelegationPayload;
    sent.push(payload === message.payload ? message : buildDelegation(engine.tier, message.id, message.correlation_id, payload, now, engine.signer, engine.runtime));
  }
  return sent;
}

/**
 * A job's outcome as the send chain leaves it, before it is signed. An outcome is always sent:
 * its interceptors get a signal that never fires, since the job answers even when it was stopped.
 *
 * @throws HandoffRefusedError when an interceptor refuses it.
 */
export async function sendOutcome(chain: HandoffChain, tier: TierName, pass: Pass, built: OutcomeMessage, received: readonly SettledChild[]): Promise<OutcomeMessage> {
  const { assignment } = pass;
  const handoff = await chain({
    kind: 'outcome',
    id: built.id,
    rootId: assignment.rootId,
    from: tier,
    to: assignment.message?.source_tier ?? 'client',
    signal: NEVER,
    payload: built.payload,
    request: assignment.payload,
    received,
  });
  return handoff.payload === built.payload ? built : { ...built, payload: handoff.payload as OutcomeMessage['payload'] };
}

/**
 * The delegation as a job's pass reads it: on the job's first pass, what the receive
 * interceptors made of it (or their refusal, for the job to answer with); on later ones, what the
 * first pass kept in the step state.
 */
export async function receivedAssignment(
  engine: Pick<Engine, 'handoffs' | 'tier'>,
  assignment: Assignment,
  facts: Pick<JobFacts, 'state' | 'stop' | 'corrupt'>,
  signal: AbortSignal,
  edits: readonly string[] = [],
): Promise<ReceivedAssignment> {
  if (facts.state?.received) return { assignment: { ...assignment, payload: facts.state.received }, changed: true, refused: null };
  // Work that will not run (stopped, or its state unreadable) is not handed to the interceptors.
  if (facts.state !== null || facts.stop !== null || facts.corrupt !== null) return { assignment, changed: false, refused: null };
  try {
    const edited = edits.length > 0 ? editedAssignment(engine.tier, assignment, edits) : assignment;
    const received = await receiveDelegation(engine, edited, signal);
    return { assignment: received, changed: received !== assignment, refused: null };
  } catch (error) {
    if (error instanceof HandoffRefusedError) return { assignment, changed: false, refused: error };
    throw error;
  }
}

/** A delegation as a pass reads it. */
export interface ReceivedAssignment {
  readonly assignment: Assignment;
  /** Whether the receive interceptors changed it: only then does the step state keep it for later passes. */
  readonly changed: boolean;
  /** Why they refused it, for the job to answer with; null when taken. */
  readonly refused: HandoffRefusedError | null;
}

/** What refuses a fork's edits that leave no delegation (docs/operations.md#rerun-fork-and-replay). */
const EDITS = 'tierflow rerun --set';

/**
 * A fork's node with its rerun's edits made to its delegation (`tierflow rerun --from … --set …`),
 * before the interceptors read it; the step state keeps it for later passes, as it keeps what they change.
 *
 * @throws HandoffRefusedError when the edits do not apply, or leave no valid delegation: the job answers so.
 */
function editedAssignment(tier: TierName, assignment: Assignment, edits: readonly string[]): Assignment {
  const handoff = { kind: 'delegation', id: assignment.id, from: assignment.message?.source_tier ?? 'client', to: tier } as const;
  let edited: unknown;
  try {
    edited = applyEdits(assignment.payload, edits);
  } catch (error) {
    throw new HandoffRefusedError(EDITS, handoff, error instanceof Error ? error.message : 'the edits do not apply');
  }
  const parsed = validateWith(delegationPayloadSchema, edited);
  if (!parsed.ok) throw new HandoffRefusedError(EDITS, handoff, `the edited delegation is not one: ${parsed.errors.map(formatValidationError).join('; ')}`);
  return { ...assignment, payload: parsed.value };
}

/**
 * The delegation a job was sent, as the receive chain leaves it: what the tier's policy reads.
 *
 * @throws HandoffRefusedError when an interceptor refuses it; the job then answers without running its policy.
 */
async function receiveDelegation(engine: Pick<Engine, 'handoffs' | 'tier'>, assignment: Assignment, signal: AbortSignal): Promise<Assignment> {
  const chain = engine.handoffs.receive;
  if (!chain) return assignment;
  const from = assignment.message?.source_tier ?? 'client';
  const handoff = await chain({ kind: 'delegation', id: assignment.id, rootId: assignment.rootId, from, to: engine.tier, signal, payload: assignment.payload });
  return handoff.payload === assignment.payload ? assignment : { ...assignment, payload: handoff.payload as DelegationPayload };
}

/**
 * What reads each settled child's outcome through the receive chain, null without one: an
 * outcome an interceptor refuses becomes a failed one (error_type `handoff_refused`, not
 * recoverable), which the tier's policy reads as it would any failure.
 */
export function outcomeReceiver(engine: Pick<Engine, 'handoffs' | 'tier' | 'log'>, pass: Pass): ((child: SettledChild, now: number) => Promise<SettledChild>) | null {
  const chain = engine.handoffs.receive;
  if (!chain) return null;
  const childTier = tierBelow(engine.tier)!;
  return async (child, now) => {
    try {
      const { payload } = child.outcome;
      const handoff = await chain({
        kind: 'outcome',
        id: child.outcome.id,
        rootId: pass.assignment.rootId,
        from: childTier,
        to: engine.tier,
        signal: pass.context.signal,
        payload,
        request: child.request,
        received: [],
      });
      return handoff.payload === payload ? child : { ...child, outcome: { ...child.outcome, payload: handoff.payload as OutcomeMessage['payload'] } };
    } catch (error) {
      if (!(error instanceof HandoffRefusedError)) throw error;
      reportRefusal(pass.span, engine.log, error);
      return { ...child, outcome: refusedChildOutcome(childTier, child.id, ERROR_TYPES.handoffRefused, error.message, now) };
    }
  };
}

/** A span event and a warning for each refusal: an operator sees which interceptor refused what. */
export function reportRefusal(span: Span, log: TierLogger, error: HandoffRefusedError): void {
  span.addEvent('handoff_refused', { 'tierflow.handoff.interceptor': error.interceptor, 'tierflow.handoff.reason': error.message });
  log.warn('a handoff interceptor refused a message', { interceptor: error.interceptor, reason: error.message });
}

/** The signal of a handoff nothing can stop. */
const NEVER = new AbortController().signal;
