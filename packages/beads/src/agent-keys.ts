/**
 * Where the Fleet publishes each agent of its registry (seed 004's manifest and lock file, in
 * Beads): `execution/agents/<agent id>`, in the Fleet's own namespace, read by the Dispatcher.
 */
export function agentKey(agentId: string): string {
  return `execution/agents/${agentId}`;
}
