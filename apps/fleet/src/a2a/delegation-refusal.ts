import { DELEGATION_REFUSALS, isJsonObject, type DelegationRefusal, type DelegationRefusalType } from '@tierflow/protocol';
import type { SpecialistResult } from '../specialist.js';

const REFUSAL_TYPES: ReadonlySet<string> = new Set(DELEGATION_REFUSALS);

/** The code a remote Tierflow puts first in a refusal's message, for a transport that drops its metadata. */
const SAID = new RegExp(`\\b(${DELEGATION_REFUSALS.join('|')}): `);

function isRefusalType(value: unknown): value is DelegationRefusalType {
  return typeof value === 'string' && REFUSAL_TYPES.has(value);
}

/**
 * Whether an error of a call to a remote agent is a remote Tierflow refusing the work as a cycle
 * or too deep (docs/protocol.md#delegation-across-deployments): its A2A error's metadata names
 * the `error_type`, or its message starts with it. Pure.
 */
export function delegationRefusalOf(error: unknown): DelegationRefusal | null {
  if (!(error instanceof Error)) return null;
  const metadata: unknown = (error as { metadata?: unknown }).metadata;
  const named = isJsonObject(metadata) ? metadata.error_type : undefined;
  const said = SAID.exec(error.message);
  const type = isRefusalType(named) ? named : said?.[1];
  if (!isRefusalType(type)) return null;
  const reason = said ? error.message.slice(said.index + said[0].length) : error.message;
  return { error_type: type, reason };
}

/** The failed, final result of a subtask a remote Tierflow refused: sending it again would be refused again. Pure. */
export function refusedResult(agent: string, refusal: DelegationRefusal): SpecialistResult {
  return {
    status: 'failed',
    summary: `${agent}: the remote agent refused the work: ${refusal.reason}`,
    confidence: 1,
    error_type: refusal.error_type,
    error_detail: refusal.reason,
    recoverable: false,
    resources_used: { a2a: { agent } },
  };
}
