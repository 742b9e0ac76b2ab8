import { TierflowError, type AttestationRefusal, type TierName } from '@tierflow/protocol';
import type { Span } from '@opentelemetry/api';
import type { RedisClient } from '@tierflow/beads';
import { appendAuditNow, type AuditEntry } from '../audit/audit-entry.js';
import { auditKey } from '../redis/keys.js';
import type { Assignment, TierLogger } from '../policy/handler.js';
import { delegationAttestationRefusal, type Attesting } from '../security/attestations.js';
import { tierPinRefusal } from '../security/tier-pins.js';
import type { Governance } from '../config/options.js';

/** What the gate reads and writes with. */
export interface AttestationGateDeps {
  readonly redis: RedisClient;
  readonly prefix: string;
  readonly attesting: Attesting;
  readonly log: TierLogger;
}

/** How much of a refusal's detail its audit entry keeps. */
const DETAIL_CHARS = 500;

/**
 * A delegation as its receiver checks its governance attestation (docs/protocol.md#attestations),
 * on the job's first pass: null when taken; else the error the job answers with (`failed`, not
 * recoverable, without running its policy), once the refusal is on the run's trail (`kind:
 * refusal`), a span event and a warning. A forged attestation is a security finding too: the
 * outcome's error type says so, and answering reports it (audit/security-findings.ts). A root
 * (from the client) is not a protocol message and carries none.
 */
export async function attestationRefused(deps: AttestationGateDeps, assignment: Assignment, span: Span, now: number): Promise<TierflowError | null> {
  const { message } = assignment;
  if (message === null) return null;
  const refusal = delegationAttestationRefusal(message, assignment.rootId, deps.attesting);
  if (refusal === null) return null;
  span.addEvent('attestation_refused', { 'error.type': refusal.error_type, 'tierflow.attestation.reason': refusal.detail });
  deps.log.warn('refused a delegation for its governance attestation', { id: assignment.id, error_type: refusal.error_type, reason: refusal.detail });
  // Below the Monitor only onto a trail that exists: a job's id is its sender's to choose.
  await appendAuditNow(deps.redis, auditKey(deps.prefix, assignment.rootId), [refusalEntry(assignment, refusal, now)], null, false, true).catch((error: unknown) =>
    deps.log.warn('could not record a refusal on its run', { id: assignment.id, error: String(error) }),
  );
  return TierflowError.permanent(refusal.detail, { code: refusal.error_type });
}

/**
 * A delegation pinned to an agent this tier does not run (security/tier-pins.ts): the error the
 * job answers with (`failed`, not recoverable, its policy not run), or null. A hash mismatch is
 * a security finding, which answering reports from the outcome's error type, as for the Fleet.
 */
export function pinRefused(tier: TierName, assignment: Assignment, governance: Governance, span: Span, log: TierLogger): TierflowError | null {
  const refusal = tierPinRefusal(tier, assignment.payload, governance);
  if (refusal === null) return null;
  span.addEvent('agent_pin_refused', { 'error.type': refusal.error_type, 'tierflow.pin.reason': refusal.detail });
  log.warn('delegation refused: agent verification failed', { id: assignment.id, error_type: refusal.error_type, detail: refusal.detail });
  // Outcome codes, not thrown ones: the kind says what a thrower would have meant.
  return TierflowError.permanent(refusal.detail, { code: refusal.error_type, kind: 'forbidden' });
}

function refusalEntry(assignment: Assignment, refusal: AttestationRefusal, now: number): AuditEntry {
  const message = assignment.message!;
  const detail = refusal.detail.length > DETAIL_CHARS ? `${refusal.detail.slice(0, DETAIL_CHARS)}…` : refusal.detail;
  return {
    time: new Date(now).toISOString(),
    from: message.source_tier,
    to: message.target_tier,
    kind: 'refusal',
    direction: 'received',
    id: message.id,
    correlation_id: message.correlation_id ?? '',
    status: 'rejected',
    confidence: null,
    by: message.target_tier,
    attempt: null,
    detail,
    data: { error_type: refusal.error_type },
  };
}
