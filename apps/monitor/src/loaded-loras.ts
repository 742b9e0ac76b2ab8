import { AGENT_KEYS_PATTERN, type Beads } from '@tierflow/beads';
import { publishedAgentSchema, type PublishedAgent } from '@tierflow/protocol';

/** The system record of what the Fleets serve (docs/protocol.md#beads-keys). */
export const LOADED_LORAS_KEY = 'system/loaded-loras';

/** How stale the record may get: the Monitor looks again at most this often, when roots arrive. */
export const LOADED_LORAS_REFRESH_MS = 30_000;

/** `system/loaded-loras`: the models behind the registered specialists, and the specialists themselves. */
export interface LoadedLoras {
  /** Every model an LLM specialist calls, sorted: with a model server, the LoRA adapters in use. */
  readonly models: readonly string[];
  readonly specialists: readonly { readonly agent_id: string; readonly agent_version: string; readonly model: string | null; readonly registered_at: string }[];
  readonly updated_at: string;
}

/** The record made from the agent registry's entries; entries that do not parse are left out. Pure. */
export function loadedLoras(entries: readonly unknown[], now: number): LoadedLoras {
  const agents = entries.flatMap((entry) => {
    const parsed = publishedAgentSchema.safeParse(entry);
    return parsed.success ? [parsed.data] : [];
  });
  agents.sort((a, b) => a.agent_id.localeCompare(b.agent_id));
  return {
    models: [...new Set(agents.flatMap((agent) => (agent.model ? [agent.model] : [])))].sort(),
    specialists: agents.map((agent: PublishedAgent) => ({ agent_id: agent.agent_id, agent_version: agent.agent_version, model: agent.model ?? null, registered_at: agent.registered_at })),
    updated_at: new Date(now).toISOString(),
  };
}

/**
 * Keeps `system/loaded-loras` current from the agent registry the Fleets publish: each call looks
 * again when the last look is older than `intervalMs` (0: never looks), so a busy Monitor pays
 * for it twice a minute by default.
 */
export function loadedLorasKeeper(intervalMs: number): (beads: Beads, now: number) => Promise<void> {
  let last = Number.NEGATIVE_INFINITY;
  return async (beads, now) => {
    if (intervalMs === 0 || now - last < intervalMs) return;
    last = now;
    const keys = await beads.keys(AGENT_KEYS_PATTERN);
    const entries = keys.length === 0 ? [] : await beads.getMany(keys);
    await beads.set(LOADED_LORAS_KEY, loadedLoras(entries, now), { ttlMs: null });
  };
}
