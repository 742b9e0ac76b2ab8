import { ERROR_TYPES, TIER_SLUGS, type OutcomeStatus, type TierName } from '@tierflow/protocol';
import type { Attributes } from '@opentelemetry/api';
import { tierInstruments } from './tier-instruments.js';

/**
 * What the tiers record in their metrics (tier-instruments.ts), each at the one point of the
 * engine where the event happens. Labels are bounded: a tier's slug, an outcome status or how a
 * pass ended, a code of {@link ERROR_TYPES}, a budget field; never an id. Each call is a few
 * attribute reads and one record: no I/O. Telemetry never fails a job: nothing here throws.
 */

/** How a pass that did not answer ended (recording/record-entry.ts PASS_ENDS, less `answered`). */
export type PassEndLabel = 'parked' | 'asked' | 'deferred' | 'retrying' | 'errored';

/** The `error.type` label for a code: one of {@link ERROR_TYPES}, else `_OTHER` (a specialist's own codes are unbounded). */
export function errorTypeLabel(code: string): string {
  return KNOWN_ERROR_TYPES.has(code) ? code : '_OTHER';
}

const KNOWN_ERROR_TYPES: ReadonlySet<string> = new Set([...Object.values(ERROR_TYPES), 'invalid_message']);

/** One pass of `tier` over a job, from taking it up to its end: answered with an outcome (its status and error type), or ended another way. */
export function hopEnded(tier: TierName, end: { readonly status: OutcomeStatus; readonly errorType: string | null } | PassEndLabel, seconds: number): void {
  const attributes: Attributes = { 'tierflow.tier': TIER_SLUGS[tier], 'tierflow.status': typeof end === 'string' ? end : end.status };
  if (typeof end !== 'string' && end.errorType) attributes['error.type'] = errorTypeLabel(end.errorType);
  tierInstruments().hopDuration.record(nonNegative(seconds), attributes);
}

/** How long a delegation waited in `tier`'s queue before its first pass. */
export function hopQueued(tier: TierName, seconds: number): void {
  tierInstruments().hopQueued.record(nonNegative(seconds), { 'tierflow.tier': TIER_SLUGS[tier] });
}

/** A run's final outcome sent, `seconds` after its root was enqueued. */
export function runFinished(status: OutcomeStatus, seconds: number): void {
  const instruments = tierInstruments();
  const attributes = { 'tierflow.status': status };
  instruments.runsFinished.add(1, attributes);
  instruments.runDuration.record(nonNegative(seconds), attributes);
}

/** A pass of `tier` that ended to be tried again. */
export function retried(tier: TierName): void {
  tierInstruments().retries.add(1, { 'tierflow.tier': TIER_SLUGS[tier] });
}

/**
 * Counts `count` failures from below that `tier` acted on (escalation, docs/protocol.md#escalation):
 * the Dispatcher's subtasks sent again (to another specialist, or after throttling), the
 * Architect's revision, the Monitor's fresh attempt. For policies that handle failures their own way.
 */
export function recordEscalations(tier: TierName, count = 1): void {
  if (count > 0) tierInstruments().escalations.add(count, { 'tierflow.tier': TIER_SLUGS[tier] });
}

/** Counts a revision of a strategy that fell short (the Architect's). */
export function recordRevision(): void {
  tierInstruments().revisions.add(1);
}

/** `count` questions put to a person by a pass of `tier`. */
export function questionsAsked(tier: TierName, count: number): void {
  if (count > 0) tierInstruments().questions.add(count, { 'tierflow.tier': TIER_SLUGS[tier] });
}

/** A wait for answers that ended (answered, or out of time) after `seconds`. */
export function questionWaited(tier: TierName, seconds: number): void {
  tierInstruments().questionWait.record(nonNegative(seconds), { 'tierflow.tier': TIER_SLUGS[tier] });
}

/** A run stopped for passing its budget's `limit` (tokens, cost, model calls). */
export function budgetStopped(limit: string): void {
  tierInstruments().budgetStops.add(1, { 'tierflow.budget': limit });
}

/** A job of `tier` refused for good and kept as a dead letter, for `reason` (whose leading `code:`, if any, is its error type). */
export function deadLettered(tier: TierName, reason: string): void {
  const code = /^([a-z_]+):/.exec(reason)?.[1];
  tierInstruments().deadLetters.add(1, { 'tierflow.tier': TIER_SLUGS[tier], 'error.type': code && KNOWN_ERROR_TYPES.has(code) ? code : 'invalid_message' });
}

/** A security finding (its kind is a known error type) in an outcome `tier` sent. */
export function securityFound(tier: TierName, kind: string): void {
  tierInstruments().securityFindings.add(1, { 'tierflow.tier': TIER_SLUGS[tier], 'error.type': kind });
}

/** Clocks of two hosts may disagree by a little: a negative time is none. */
function nonNegative(seconds: number): number {
  return Number.isFinite(seconds) && seconds > 0 ? seconds : 0;
}
