import { ERROR_TYPES, MAX_CLARIFICATION_CHARS, TierflowError } from '@tierflow/protocol';
import type { FleetOutcome } from './specialist-outcome.js';
import type { Specialist, SpecialistInput } from './specialist.js';

/**
 * Why `specialist` rejects the handoff offered as `input` (docs/protocol.md#explicit-rejection),
 * or null when it takes it (and when it has no `accepts` hook). Its answer is the specialist's
 * code, so it is checked: anything but an acceptance or a rejection with a reason fails the run.
 *
 * @throws TierflowError (permanent, code `invalid_specialist_result`) for an answer out of shape;
 *   whatever the hook throws, as the specialist's `run` would.
 */
export async function rejectionOf(specialist: Specialist, input: SpecialistInput): Promise<string | null> {
  if (!specialist.accepts) return null;
  const answer: unknown = await specialist.accepts(input);
  if (typeof answer === 'object' && answer !== null && 'accept' in answer) {
    if (answer.accept === true) return null;
    const reason = 'reason' in answer && typeof answer.reason === 'string' ? answer.reason.trim() : '';
    if (answer.accept === false && reason !== '') return reason.length > MAX_CLARIFICATION_CHARS ? `${reason.slice(0, MAX_CLARIFICATION_CHARS - 1)}…` : reason;
  }
  throw TierflowError.permanent(`${specialist.name}: accepts must return { accept: true } or { accept: false, reason } with a reason`, { code: 'invalid_specialist_result' });
}

/**
 * The Fleet's answer for a handoff its specialist rejected before starting: `failed` with
 * `handoff_rejected`, recoverable, so the Dispatcher hands the work to its next specialist and a
 * tier above may still revise. Nothing ran, so nothing was used. Pure.
 */
export function rejectedOutcome(specialist: Pick<Specialist, 'name' | 'version'>, reason: string): FleetOutcome {
  return {
    status: 'failed',
    summary: `rejected by ${specialist.name}: ${reason}`,
    confidence: 0,
    error_type: ERROR_TYPES.handoffRejected,
    error_detail: reason,
    recoverable: true,
    result_refs: [],
    artifacts: [],
    resources_used: { specialist: specialist.name, specialist_version: specialist.version },
  };
}
