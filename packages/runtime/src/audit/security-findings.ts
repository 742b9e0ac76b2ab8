import { ERROR_TYPES, type OutcomePayload } from '@tierflow/protocol';

/** How grave a finding is, as webhook receivers and people sort them. */
export type SecuritySeverity = 'low' | 'medium' | 'high' | 'critical';

/** A security finding in an outcome: what kind (its error type), how grave, and what it said. */
export interface SecurityFinding {
  readonly kind: string;
  readonly severity: SecuritySeverity;
  readonly message: string;
}

/**
 * The error types that are security findings and not only failures, with their severity: an
 * agent whose prompt hash does not match what was pinned is running other instructions than
 * were vetted (docs/protocol.md#target-agents).
 */
const SECURITY_ERROR_TYPES: Readonly<Record<string, SecuritySeverity>> = {
  [ERROR_TYPES.agentHashMismatch]: 'high',
  // A delegation whose attestation claims what does not hold was forged or tampered with (docs/protocol.md#attestations).
  [ERROR_TYPES.attestationInvalid]: 'high',
};

/** How much of the outcome's error detail a finding keeps. */
const MESSAGE_CHARS = 500;

/** The security finding an outcome reports, or null for one that reports none. Pure. */
export function securityFindingOf(payload: Pick<OutcomePayload, 'error_type' | 'error_detail' | 'summary'>): SecurityFinding | null {
  const kind = payload.error_type;
  const severity = kind === null || kind === undefined ? undefined : SECURITY_ERROR_TYPES[kind];
  if (kind === null || kind === undefined || severity === undefined) return null;
  const said = payload.error_detail ?? payload.summary;
  return { kind, severity, message: said.length > MESSAGE_CHARS ? `${said.slice(0, MESSAGE_CHARS)}…` : said || kind };
}
