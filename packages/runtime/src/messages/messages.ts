import {
  type DelegationMessage,
  delegationPayloadSchema,
  ERROR_TYPES,
  fastSafeParse,
  InvalidMessageError,
  messageIdSchema,
  type OutcomeMessage,
  outcomePayloadSchema,
  PROTOCOL_VERSION,
  tierAbove,
  tierBelow,
  TierflowError,
  type TierName,
  validateWith,
  type ValidationError,
} from '@tierflow/protocol';
import type { z } from 'zod';
import type { DelegationDraft, OutcomeDraft } from '../policy/handler.js';
import { outcomeMessageId, rootIdOf } from './ids.js';
import { attestedDelegation, type Attesting } from '../security/attestations.js';
import { signRecord } from '../security/signing.js';
import type { Signer } from '../security/signing-keys.js';

/**
 * Builds and validates a delegation from `tier` to the tier below it, attested
 * (docs/protocol.md#attestations) under `attesting`'s boundaries and identity, then signed when
 * `signer` is given, so that the signature covers the attestation.
 */
export function buildDelegation(
  tier: TierName,
  id: string,
  correlationId: string | null,
  draft: DelegationDraft,
  now: number,
  signer: Signer | null = null,
  attesting: Attesting | null = null,
): DelegationMessage {
  const target = tierBelow(tier);
  if (!target) throw TierflowError.permanent(`${tier} cannot delegate: it is the lowest tier`, { code: 'delegation_refused' });
  const message: DelegationMessage = {
    version: PROTOCOL_VERSION,
    id,
    timestamp: new Date(now).toISOString(),
    source_tier: tier,
    target_tier: target,
    correlation_id: correlationId,
    payload: checkedPayload(delegationPayloadSchema, draft, id, correlationId),
  };
  return signRecord(attestedDelegation(message, rootIdOf(id), signer !== null, attesting), signer);
}

/**
 * Builds and validates the outcome answering delegation `delegationId`. `from` is the tier that
 * did the work; the outcome goes to the tier above it.
 */
export function buildOutcome(from: TierName, delegationId: string, draft: OutcomeDraft, elapsedMs: number, now: number): OutcomeMessage {
  const target = tierAbove(from);
  if (!target) throw TierflowError.permanent(`${from} has no tier above to report to`, { code: 'invalid_outcome' });
  const id = outcomeMessageId(delegationId);
  return {
    version: PROTOCOL_VERSION,
    id,
    timestamp: new Date(now).toISOString(),
    source_tier: from,
    target_tier: target,
    correlation_id: delegationId,
    payload: checkedPayload(outcomePayloadSchema, { execution_time_ms: Math.max(0, Math.round(elapsedMs)), ...draft }, id, delegationId),
  };
}

/**
 * The outcome of a whole run, as the Monitor answers its client: the Architect's answer to
 * `answering` (the root's last delegation, or the root itself when it delegated nothing), under
 * the root's own outcome id, so that the outcome names the run it ends.
 */
export function buildRootOutcome(rootId: string, answering: string, draft: OutcomeDraft, elapsedMs: number, now: number): OutcomeMessage {
  return { ...buildOutcome('ABSTRACT_ARCHITECT', answering, draft, elapsedMs, now), id: outcomeMessageId(rootId) };
}

/**
 * The policy's payload, validated (defaults filled in), or InvalidMessageError with every error,
 * with paths into the message as the receiver would report them. The rest of the envelope is
 * made here from the tier table and the clock, so it is right by construction; only the ids,
 * which grow with each level and round, are checked against the protocol's limit.
 */
function checkedPayload<S extends z.ZodType>(schema: S, draft: unknown, id: string, correlationId: string | null): z.output<S> {
  const errors: ValidationError[] = [];
  for (const [path, value] of [
    ['$.id', id],
    ['$.correlation_id', correlationId],
  ] as const) {
    if (value === null) continue;
    const checked = fastSafeParse(messageIdSchema, value);
    if (!checked.success) errors.push({ path, code: 'invalid_format', message: checked.error.issues[0]?.message ?? 'not a message id' });
  }
  const payload = validateWith(schema, draft);
  if (!payload.ok) errors.push(...payload.errors.map((error) => ({ ...error, path: `$.payload${error.path.slice(1)}` })));
  if (errors.length > 0 || !payload.ok) throw new InvalidMessageError(errors);
  return payload.value;
}

/** A failed outcome for a child whose job failed for good (or vanished), so its parent never waits forever. */
export function failedChildOutcome(from: TierName, delegationId: string, reason: string, now: number): OutcomeMessage {
  return buildOutcome(
    from,
    delegationId,
    {
      status: 'failed',
      summary: `the ${from} job failed: ${reason}`,
      confidence: 0,
      error_type: ERROR_TYPES.jobFailed,
      error_detail: reason,
      recoverable: true,
    },
    0,
    now,
  );
}

/** A timeout recorded by the sender's watchdog for a child that had not answered by its deadline. */
export function timedOutChildOutcome(from: TierName, delegationId: string, timeoutMs: number | null, now: number): OutcomeMessage {
  const detail = `no outcome within ${timeoutMs ?? '?'} ms`;
  return buildOutcome(
    from,
    delegationId,
    { status: 'timeout', summary: `the ${from} did not answer in time: ${detail}`, confidence: 0, error_type: ERROR_TYPES.timeout, error_detail: detail, recoverable: true },
    timeoutMs ?? 0,
    now,
  );
}

/**
 * A failed outcome in place of a child's answer that this parent refuses to read (a bad
 * signature): not recoverable, since sending the same work again cannot make the answer genuine.
 */
export function refusedChildOutcome(from: TierName, delegationId: string, errorType: string, reason: string, now: number): OutcomeMessage {
  return buildOutcome(
    from,
    delegationId,
    { status: 'failed', summary: `the ${from}'s outcome was refused: ${reason}`, confidence: 0, error_type: errorType, error_detail: reason, recoverable: false },
    0,
    now,
  );
}
