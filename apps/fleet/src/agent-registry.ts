import { agentKey, type Beads } from '@tierflow/beads';
import type { AgentIdentity } from '@tierflow/protocol';
import type { SpecialistRegistry } from './registry.js';

/** One published registry entry: the identity, and when this Fleet process published it. */
export interface PublishedAgent extends AgentIdentity {
  readonly registered_at: string;
}

/**
 * Publishes the registry to Beads, one entry per agent, so the Dispatcher pins what it delegates
 * to the agent registered. No expiry: an entry lasts until a Fleet starts with that agent changed.
 */
export async function publishAgents(beads: Beads, registry: SpecialistRegistry, now: number): Promise<void> {
  const registered_at = new Date(now).toISOString();
  await beads.setMany(registry.identities().map((identity) => ({ key: agentKey(identity.agent_id), value: { ...identity, registered_at } satisfies PublishedAgent, ttlMs: null })));
}
