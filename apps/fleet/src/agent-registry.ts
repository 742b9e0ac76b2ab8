import { agentKey, type Beads } from '@tierflow/beads';
import type { PublishedAgent } from '@tierflow/protocol';
import type { SpecialistRegistry } from './registry.js';

/**
 * Publishes the registry to Beads, one entry per agent, so the Dispatcher pins what it delegates
 * to the agent registered, and the Monitor lists the models served. No expiry: an entry lasts
 * until a Fleet starts with that agent changed.
 */
export async function publishAgents(beads: Beads, registry: SpecialistRegistry, now: number): Promise<void> {
  const registered_at = new Date(now).toISOString();
  await beads.setMany(
    registry.identities().map((identity) => {
      const model = registry.get(identity.agent_id)?.config?.['model'];
      const value: PublishedAgent = { ...identity, registered_at, ...(typeof model === 'string' && model !== '' ? { model } : {}) };
      return { key: agentKey(identity.agent_id), value, ttlMs: null };
    }),
  );
}
