import { agentKey } from '@tierflow/beads';
import type { Boundaries } from '@tierflow/core';
import { agentIdentitySchema, isTierflowError, type AgentIdentity } from '@tierflow/protocol';
import type { Subtask, TierContext } from '@tierflow/runtime';
import { routeSubtask, type Route } from './route.js';

/** Where a subtask goes: one that pins its agent (`target_agent`) goes to that agent and nowhere else. Pure. */
export function routeOf(subtask: Subtask, routing: Readonly<Record<string, readonly string[]>>, boundaries: Boundaries | null = null): Route {
  if (subtask.target_agent) return { specialist: subtask.target_agent.agent_id, alternates: [] };
  return routeSubtask(subtask, routing, boundaries);
}

/**
 * The identities to pin for the given specialists: the lock file's, when `locked` reads one (a
 * source independent of the agents: docs/operations.md#governed-handoffs), else what the Fleet
 * published to Beads (`execution/agents/<id>`); a specialist with neither is left out (and the
 * Fleet still checks what it runs).
 */
export async function registeredAgents(
  context: Pick<TierContext, 'beads' | 'log'>,
  specialists: readonly string[],
  locked: (() => Promise<ReadonlyMap<string, AgentIdentity>>) | null = null,
): Promise<ReadonlyMap<string, AgentIdentity>> {
  const lock = locked === null ? new Map<string, AgentIdentity>() : await locked();
  const names = [...new Set(specialists)].filter((name) => !lock.has(name));
  const entries = await Promise.all(names.map((name) => readEntry(context, agentKey(name))));
  const found = new Map<string, AgentIdentity>();
  names.forEach((name, index) => {
    const parsed = agentIdentitySchema.safeParse(entries[index]);
    if (parsed.success && parsed.data.agent_id === name) found.set(name, identity(parsed.data));
  });
  for (const name of new Set(specialists)) {
    const pinned = lock.get(name);
    if (pinned) found.set(name, identity(pinned));
  }
  return found;
}

/** An entry as stored; one that is not JSON counts as none, and is logged. */
async function readEntry(context: Pick<TierContext, 'beads' | 'log'>, key: string): Promise<unknown> {
  try {
    return await context.beads.get(key);
  } catch (error) {
    if (!isTierflowError(error) || error.code !== 'beads_corrupt') throw error;
    context.log.warn('ignored an agent registry entry that is not JSON', { key });
    return null;
  }
}

/**
 * The identity a delegation to `specialist` pins: the subtask's own pin when it is for that
 * agent (the user's lock), else the registry's entry; none when the registry has no entry, and
 * the Fleet still refuses a name it does not register. Pure.
 */
export function pinFor(subtask: Pick<Subtask, 'target_agent'>, specialist: string, registered: ReadonlyMap<string, AgentIdentity>): AgentIdentity | undefined {
  const own = subtask.target_agent;
  if (own && own.agent_id === specialist) return identity(own);
  return registered.get(specialist);
}

// Only the identity travels: a registry entry's other fields (registered_at) stay in Beads.
function identity({ agent_id, agent_version, prompt_hash }: AgentIdentity): AgentIdentity {
  return { agent_id, agent_version, prompt_hash };
}
