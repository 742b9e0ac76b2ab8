import { ERROR_TYPES, type DelegationPayload } from '@tierflow/protocol';
import type { Step, TierContext, TierHandler } from '@tierflow/runtime';
import { agentBlockedDetail, type AgentBlock } from '@tierflow/runtime/admin';
import type { SpecialistRegistry } from './registry.js';
import type { FleetOutcome } from './specialist-outcome.js';

/** Where agents' blocks are kept (AgentBlocks in Redis; a map in tests). */
export interface AgentBlockStore {
  get(agentId: string): Promise<AgentBlock | null>;
  /** Blocks the agent unless it is blocked already; the block in force. */
  block(block: AgentBlock): Promise<AgentBlock>;
}

/** The agent a delegation names: its pin's, else its `specialist_hint`; null for none. Pure. */
export function agentNamed(payload: Pick<DelegationPayload, 'specialist_hint' | 'target_agent'>): string | null {
  return payload.target_agent?.agent_id ?? payload.specialist_hint;
}

/** The block a hash mismatch found in one delegation puts on its agent. Pure. */
export function blockFor(agentId: string, context: Pick<TierContext, 'assignment'>, now: number, mismatch: string | null): AgentBlock {
  return {
    agent_id: agentId,
    since: new Date(now).toISOString(),
    root_id: context.assignment.rootId,
    message_id: context.assignment.id,
    detail: `its version or prompt hash differs from its pin (${mismatch ?? 'agent_hash_mismatch'})`,
  };
}

/** The refusal of work sent to a blocked agent: failed, not recoverable, nothing run. Pure. */
export function blockedOutcome(block: AgentBlock, registry: SpecialistRegistry): FleetOutcome {
  const detail = agentBlockedDetail(block);
  return {
    status: 'failed',
    summary: `refused: ${detail}`,
    confidence: 0,
    error_type: ERROR_TYPES.agentBlocked,
    error_detail: detail,
    recoverable: false,
    result_refs: [],
    artifacts: [],
    resources_used: { agent_requested: block.agent_id, agents_registered: registry.names() },
  };
}

/**
 * The Fleet's policy behind agent blocks (docs/operations.md#governed-handoffs): work for a
 * blocked agent is refused `agent_blocked` before the policy sees it, and a hash mismatch the
 * policy answers blocks its agent deployment-wide, before the answer goes up, until an operator
 * reconciles it (`tierflow lock --accept <agent>`).
 */
export function blockingAgents(inner: TierHandler, blocks: AgentBlockStore, registry: SpecialistRegistry): TierHandler {
  return {
    ...inner,
    start: async (context) => {
      const name = agentNamed(context.assignment.payload);
      const blocked = name === null ? null : await blocks.get(name);
      if (blocked) {
        context.log.warn('delegation refused: the agent is blocked until reconciled', { id: context.assignment.id, agent: blocked.agent_id, since: blocked.since, found_by: blocked.root_id });
        return { kind: 'outcome', outcome: blockedOutcome(blocked, registry) } satisfies Step;
      }
      const step = await inner.start(context);
      if (name !== null && step.kind === 'outcome' && step.outcome.error_type === ERROR_TYPES.agentHashMismatch) {
        const block = await blocks.block(blockFor(name, context, context.now(), step.outcome.error_detail ?? null));
        context.log.warn('agent blocked until an operator reconciles it', { agent: name, since: block.since, found_by: block.root_id });
      }
      return step;
    },
  };
}
