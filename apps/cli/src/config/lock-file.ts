import { ConfigError } from '@tierflow/runtime';
import { readFile, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { issueLines } from './config-issues.js';
import { agentTypeSchema, semverSchema } from './governance-section.js';
import type { Manifest, ManifestAgent } from './manifest.js';

/** One agent as the lock file pins it. */
const lockedAgentSchema = z.strictObject({
  type: agentTypeSchema,
  version: semverSchema,
  prompt_hash: z.string().regex(/^[0-9a-f]{64}$/, { message: 'must be a SHA-256 hash: 64 lowercase hex digits' }),
});
export type LockedAgent = z.infer<typeof lockedAgentSchema>;

/** The lock file (`tierflow lock`): the agents a deployment was vetted with, committed beside the project file. */
export const lockFileSchema = z.strictObject({
  lockfileVersion: z.literal(1, { error: 'must be 1' }),
  agents: z.record(z.string().min(1), lockedAgentSchema),
});
export type LockFile = z.infer<typeof lockFileSchema>;

/** How the lock and the manifest differ for one agent. */
export interface LockDifference {
  readonly agent: string;
  /** `missing`: in the manifest, not the lock; `extra`: in the lock, no longer in the manifest. */
  readonly kind: 'missing' | 'extra' | 'type' | 'version' | 'prompt_hash';
  readonly locked?: string;
  readonly current?: string;
}

const byId = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The lock of a manifest: every agent's type, version and prompt hash. Pure. */
export function lockOf(manifest: Pick<Manifest, 'agents'>): LockFile {
  return { lockfileVersion: 1, agents: Object.fromEntries(manifest.agents.map((agent) => [agent.id, lockedOf(agent)])) };
}

function lockedOf(agent: ManifestAgent): LockedAgent {
  return { type: agent.type, version: agent.version, prompt_hash: agent.prompt_hash };
}

/** A lock as written: agents sorted by id, fields in a fixed order, two-space JSON and a final newline, so a diff shows only what changed. Pure. */
export function lockText(lock: LockFile): string {
  const agents = Object.fromEntries(
    Object.keys(lock.agents)
      .sort(byId)
      .map((id) => {
        const { type, version, prompt_hash } = lock.agents[id]!;
        return [id, { type, version, prompt_hash }];
      }),
  );
  return `${JSON.stringify({ lockfileVersion: 1, agents }, null, 2)}\n`;
}

/** A lock read from its text; `shown` names the file in each problem. Pure. @throws ConfigError naming the file and field. */
export function parseLock(text: string, shown: string): LockFile {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError([`${shown}: not JSON: ${error instanceof Error ? error.message : String(error)}`]);
  }
  const parsed = lockFileSchema.safeParse(value);
  if (!parsed.success) throw new ConfigError(issueLines(parsed.error.issues).map((line) => `${shown}: ${line}`));
  return parsed.data;
}

/** Every way the lock (null: none) and the manifest differ, by agent id. Pure. */
export function lockDifferences(lock: LockFile | null, manifest: Pick<Manifest, 'agents'>): LockDifference[] {
  const locked = lock?.agents ?? {};
  const current = new Map(manifest.agents.map((agent) => [agent.id, agent]));
  const ids = [...new Set([...current.keys(), ...Object.keys(locked)])].sort(byId);
  return ids.flatMap((id): LockDifference[] => {
    const agent = current.get(id);
    const pinned = Object.hasOwn(locked, id) ? locked[id] : undefined;
    if (!agent) return [{ agent: id, kind: 'extra' }];
    if (!pinned) return [{ agent: id, kind: 'missing' }];
    return (['type', 'version', 'prompt_hash'] as const).filter((field) => pinned[field] !== agent[field]).map((field) => ({ agent: id, kind: field, locked: pinned[field], current: agent[field] }));
  });
}

/** A difference in words. Pure. */
export function describeDifference(difference: LockDifference): string {
  const { agent, kind, locked = '', current = '' } = difference;
  switch (kind) {
    case 'missing':
      return `${agent}: not in the lock file`;
    case 'extra':
      return `${agent}: in the lock file, but no longer in the manifest`;
    case 'prompt_hash':
      return `${agent}: prompt hash differs (locked ${locked.slice(0, 12)}…, now ${current.slice(0, 12)}…)`;
    default:
      return `${agent}: ${kind} differs (locked ${locked}, now ${current})`;
  }
}

/** The lock with one agent's entry made the manifest's, and what changed; null when the manifest has no such agent. Pure. */
export function acceptAgent(lock: LockFile | null, manifest: Pick<Manifest, 'agents'>, id: string): { readonly lock: LockFile; readonly changes: LockDifference[] } | null {
  const agent = manifest.agents.find((candidate) => candidate.id === id);
  if (!agent) return null;
  const changes = lockDifferences(lock, { agents: [agent] }).filter((difference) => difference.agent === id);
  return { lock: { lockfileVersion: 1, agents: { ...(lock?.agents ?? {}), [id]: lockedOf(agent) } }, changes };
}

/** The lock file at `file`, or null when there is none. @throws ConfigError for one that cannot be read or is not valid. */
export async function readLockFile(file: string, shown: string): Promise<LockFile | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new ConfigError([`${shown}: cannot be read: ${error instanceof Error ? error.message : String(error)}`]);
  }
  return parseLock(text, shown);
}

/** Writes a lock file as {@link lockText} gives it. */
export async function writeLockFile(file: string, lock: LockFile): Promise<void> {
  await writeFile(file, lockText(lock), 'utf8');
}
