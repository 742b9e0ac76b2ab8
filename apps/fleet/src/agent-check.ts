import { ERROR_TYPES, type DelegationPayload } from '@tierflow/protocol';
import type { SpecialistRegistry } from './registry.js';

/** The error_type of a delegation for an agent this Fleet does not register. */
/** The error_type of a delegation pinned to another version or prompt hash than the one registered. */

export interface AgentRefusal {
  readonly error_type: typeof ERROR_TYPES.unknownAgent | typeof ERROR_TYPES.agentHashMismatch;
  readonly detail: string;
}

const short = (hash: string): string => `${hash.slice(0, 12)}…`;

/**
 * Agent verification on the Fleet's side (docs/protocol.md#target-agents): the agent a delegation
 * names (`target_agent.agent_id`, else `specialist_hint`) must be registered here, and when the
 * delegation pins `target_agent`, its version and prompt hash must be the registered ones. Null
 * when the delegation names no agent (the Fleet answers `specialist_unavailable`) or passes.
 * Pure.
 */
export function agentRefusal(payload: Pick<DelegationPayload, 'specialist_hint' | 'target_agent'>, registry: SpecialistRegistry): AgentRefusal | null {
  const target = payload.target_agent;
  const hint = payload.specialist_hint;
  if (target && hint !== null && hint !== target.agent_id) {
    return { error_type: ERROR_TYPES.unknownAgent, detail: `target_agent "${target.agent_id}" and specialist_hint "${hint}" name different agents` };
  }
  const name = target?.agent_id ?? hint;
  if (name === null) return null;
  const registered = registry.identity(name);
  if (!registered) return { error_type: ERROR_TYPES.unknownAgent, detail: `no agent "${name}" in this fleet's registry (registered: ${registry.names().join(', ') || 'none'})` };
  if (target && (target.agent_version !== registered.agent_version || target.prompt_hash !== registered.prompt_hash)) {
    return {
      error_type: ERROR_TYPES.agentHashMismatch,
      detail:
        `the delegation expects ${name} ${target.agent_version} with prompt hash ${short(target.prompt_hash)}, ` +
        `but this fleet registers ${name} ${registered.agent_version} with prompt hash ${short(registered.prompt_hash)}`,
    };
  }
  return null;
}
