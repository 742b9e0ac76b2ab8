/**
 * Where the Fleet publishes each agent of its registry: `execution/agents/<agent id>`, in the
 * Fleet's own namespace, read by the Dispatcher (docs/protocol.md#target-agents).
 */
export function agentKey(agentId: string): string {
  return `execution/agents/${agentId}`;
}

/** The pattern of every published agent's key, for {@link Beads.keys}. */
export const AGENT_KEYS_PATTERN = 'execution/agents/*';
