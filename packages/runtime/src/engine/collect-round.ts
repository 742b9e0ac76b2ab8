import { isOutcome, tierBelow, validate, type OutcomeMessage, type TierName } from '@tierflow/protocol';
import type { Job, Queue } from 'bullmq';
import type { SettledChild, SettledRound } from '../policy/handler.js';
import { failedChildOutcome, refusedChildOutcome, timedOutChildOutcome } from '../messages/messages.js';
import { rootIdOf } from '../messages/ids.js';
import { outcomeAttestationRefusal, type Attesting } from '../security/attestations.js';
import { verifiedOutcome } from '../security/outcome-check.js';
import { childValueKey } from '../redis/bullmq-keys.js';
import type { SigningConfig } from '../security/signing-keys.js';
import type { StepState } from '../steps/step-store.js';

/** Children of the round with no outcome yet, and whether their jobs still exist. */
export interface PendingRound {
  readonly absent: readonly StepState['children'][number][];
}

/**
 * How a round treats children without an outcome:
 * - `wait`: children without an outcome are pending;
 * - `give-up`: they are reported failed (the parent was woken, yet they never answered);
 * - `settled-only`: they are left out (the parent stops early: cancelled, or out of time).
 * A child the sender's watchdog gave up on answers `timeout` in every mode.
 */
export type CollectMode = 'wait' | 'give-up' | 'settled-only';

/** What {@link collectRound} reads a round with. */
export interface CollectInput {
  /** The parent's job. */
  readonly job: Job;
  /** The queue of the tier below, where the children are. */
  readonly lowerQueue: Queue;
  readonly state: StepState;
  /** The parent's tier. */
  readonly tier: TierName;
  readonly mode: CollectMode;
  /** The ids among these the sender's watchdog recorded as timed out. */
  readonly timedOut: (ids: readonly string[]) => Promise<ReadonlySet<string>>;
  readonly signing: SigningConfig | null;
  /** The children's return values (BullMQ's processed values, parsed without throwing). */
  readonly childValues: () => Promise<Record<string, unknown>> | Record<string, unknown>;
  /** Now, on the deployment's clock: the time of the outcomes made up for silent children. */
  readonly now: number;
  /** What each child's attestation is checked against (docs/protocol.md#attestations): the deployment's boundaries and governance. */
  readonly attesting?: Attesting | null;
  /** Reads each outcome of a settled round through the deployment's receive interceptors; null without any. */
  readonly receive?: ((child: SettledChild, now: number) => Promise<SettledChild>) | null;
}

/**
 * Reads the outcomes of the current round's children from the parent's job: completed children's
 * return values (each verified, when the deployment signs), failures of children that failed for
 * good, and timeouts the watchdog recorded, all as outcomes; what is still missing is pending or
 * settled as `mode` says.
 */
export async function collectRound(input: CollectInput): Promise<SettledRound | PendingRound> {
  const { job, lowerQueue, state, tier, mode, timedOut, signing, childValues, now, receive, attesting = null } = input;
  const childTier = tierBelow(tier)!;
  const values = await childValues();
  // Usually every child has answered: only then are failures and timeout records worth a read.
  const unanswered = state.children.filter((child) => !(childValueKey(lowerQueue, child.id) in values));
  const [failures, late] =
    unanswered.length === 0 ? [{} as Record<string, string>, new Set<string>()] : await Promise.all([job.getIgnoredChildrenFailures(), timedOut(unanswered.map((child) => child.id))]);
  const settled: SettledChild[] = [];
  const missing: StepState['children'][number][] = [];
  for (const child of state.children) {
    const key = childValueKey(lowerQueue, child.id);
    let outcome: OutcomeMessage | null = null;
    if (key in values) outcome = readOutcome(values[key], child, childTier, now, signing, attesting);
    else if (key in failures) outcome = failedChildOutcome(childTier, child.id, failures[key] ?? 'unknown failure', now);
    else if (late.has(child.id)) outcome = timedOutChildOutcome(childTier, child.id, child.request.timeout_ms, now);
    else if (mode === 'give-up') outcome = failedChildOutcome(childTier, child.id, 'the child job vanished before reporting', now);
    if (outcome) settled.push({ id: child.id, index: child.index, request: child.request, outcome });
    else if (mode !== 'settled-only') missing.push(child);
  }
  if (missing.length > 0) {
    const exists = await Promise.all(missing.map(async (child) => (await lowerQueue.getJob(child.id)) !== undefined));
    return { absent: missing.filter((_, index) => !exists[index]) };
  }
  settled.sort((a, b) => Date.parse(a.outcome.timestamp) - Date.parse(b.outcome.timestamp) || a.index - b.index);
  // Only a settled round goes through the interceptors: each outcome once a read, in completion order.
  const children = receive ? await receivedInOrder(settled, receive, now) : settled;
  return { round: state.round, strategy: state.strategy, children, memo: state.memo };
}

async function receivedInOrder(settled: readonly SettledChild[], receive: (child: SettledChild, now: number) => Promise<SettledChild>, now: number): Promise<SettledChild[]> {
  const children: SettledChild[] = [];
  for (const child of settled) children.push(await receive(child, now));
  return children;
}

function readOutcome(value: unknown, child: StepState['children'][number], childTier: TierName, now: number, signing: SigningConfig | null, attesting: Attesting | null): OutcomeMessage {
  const childId = child.id;
  const result = validate(value);
  // In a deployment that signs, an unsigned, forged or misdirected answer becomes a refusal; so does one whose attestation does not hold.
  if (result.ok && isOutcome(result.value)) {
    const verified = verifiedOutcome(value, result.value, childTier, childId, now, signing);
    return verified === result.value ? attestedOrRefused(verified, child, childTier, now, attesting) : verified;
  }
  const reason = result.ok ? 'it returned a message that is not an outcome' : `its outcome is invalid: ${result.errors[0]?.message ?? ''}`;
  return failedChildOutcome(childTier, childId, reason, now);
}

/**
 * A child's answer as its parent may read it for its attestation: as it is, or (unattested under
 * `governance.require`, or attested with claims that do not hold) a failed, unrecoverable outcome
 * saying why. An outcome this parent made up (a refusal, a failure) carries none and is not checked.
 */
function attestedOrRefused(outcome: OutcomeMessage, child: StepState['children'][number], childTier: TierName, now: number, attesting: Attesting | null): OutcomeMessage {
  if (attesting === null) return outcome;
  const refusal = outcomeAttestationRefusal(outcome, rootIdOf(child.id), child.request, attesting);
  return refusal === null ? outcome : refusedChildOutcome(childTier, child.id, refusal.error_type, refusal.detail, now);
}

export function isPending(round: SettledRound | PendingRound): round is PendingRound {
  return 'absent' in round;
}
