/**
 * Where the Fleet publishes each agent of its registry: `execution/agents/<agent id>`, in the
 * Fleet's own namespace, read by the Dispatcher (docs/protocol.md#target-agents).
 */
export function agentKey(agentId: string): string {
  return `execution/agents/${agentId}`;
}
