import type { AgentIdentity, TierSlug } from '@tierflow/protocol';
import { ConfigError, type TierLogger } from '@tierflow/runtime';
import type { Specialist } from '@tierflow/fleet';
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { shownPath, type LoadedConfig } from './config-file.js';
import { lockFilePath, runtimeVersion } from './governance-section.js';
import { describeDifference, lockDifferences, readLockFile, type LockDifference, type LockFile } from './lock-file.js';
import { identityOf, manifestOf, type Manifest } from './manifest.js';

/** A project's agents against its lock file. */
export interface GovernanceState {
  readonly manifest: Manifest;
  /** The lock file, absolute, and as messages show it. */
  readonly lockFile: string;
  readonly shown: string;
  /** Null when there is no lock file. */
  readonly lock: LockFile | null;
  readonly differences: readonly LockDifference[];
}

/** The manifest of a loaded project and its setup's specialists, against the lock file. @throws ConfigError for a lock file that is not valid. */
export async function governanceOf(project: LoadedConfig, specialists: readonly Specialist[], cwd: string = process.cwd()): Promise<GovernanceState> {
  const manifest = manifestOf({ config: project.config, specialists, runtimeVersion: runtimeVersion() });
  const lockFile = lockFilePath(project, cwd);
  const shown = shownPath(lockFile, cwd);
  const lock = await readLockFile(lockFile, shown);
  return { manifest, lockFile, shown, lock, differences: lockDifferences(lock, manifest) };
}

/** The agents a worker of `tier` answers for at start (the tier itself; the Fleet, its specialists too); `all` for `tierflow up`. Pure. */
export function agentsAt(manifest: Manifest, tier: TierSlug | 'all'): Set<string> {
  return new Set(manifest.agents.filter((agent) => tier === 'all' || agent.id === tier || (tier === 'fleet' && agent.type !== 'orchestrator')).map((agent) => agent.id));
}

/**
 * Why a worker of `tier` may not start under `governance.require`: the manifest's own problems,
 * no lock file, or each of its agents missing from the lock or differing from it. An agent the
 * lock lists that no longer runs refuses nothing. Empty when it may. Pure.
 */
export function startProblems(state: GovernanceState, tier: TierSlug | 'all'): string[] {
  if (state.lock === null) return [...state.manifest.problems, `${state.shown}: no lock file: run \`tierflow lock\` to write it`];
  const ours = agentsAt(state.manifest, tier);
  const differing = state.differences.filter((difference) => difference.kind !== 'extra' && ours.has(difference.agent));
  return [
    ...state.manifest.problems,
    ...differing.map((difference) => `${state.shown}: ${describeDifference(difference)}: run \`tierflow lock --accept ${difference.agent}\` once the change is vetted`),
  ];
}

/**
 * The check at a worker's start (docs/operations.md#governed-handoffs): with `governance.require`,
 * an agent of this tier missing from the lock file or differing from it refuses the start; without
 * it, a lock file that differs is only warned of. Nothing is read for a project without a
 * `governance` section or a lock file.
 *
 * @throws ConfigError naming each agent, and what to run.
 */
export async function checkGovernanceAtStart(project: LoadedConfig, specialists: readonly Specialist[], tier: TierSlug | 'all', warn: (line: string) => void): Promise<void> {
  const required = project.config.governance?.require === true;
  if (!required && !existsSync(lockFilePath(project))) return;
  const state = await governanceOf(project, specialists);
  const problems = startProblems(state, tier);
  if (problems.length === 0) return;
  if (required) {
    throw new ConfigError([
      ...problems,
      'governance.require is on: agents must match the lock file; run `tierflow lock` to lock every agent as it is now, or `tierflow lock --accept <agent>` for one',
    ]);
  }
  for (const line of problems) warn(`governance: ${line}`);
}

/**
 * The identities the lock file pins, read afresh whenever the file changes (an operator's
 * `tierflow lock --accept` takes effect without a restart): what the Dispatcher pins its Fleet
 * delegations to. An empty map without a lock file; the last one read when it cannot be read.
 */
export function lockedAgentsReader(file: string, shown: string, log: Pick<TierLogger, 'warn'>): () => Promise<ReadonlyMap<string, AgentIdentity>> {
  let seen: { readonly stamp: string; readonly agents: ReadonlyMap<string, AgentIdentity> } = { stamp: 'none', agents: new Map() };
  return async () => {
    const stamp = await stat(file, { bigint: true }).then(
      (stats) => `${stats.mtimeNs}:${stats.size}:${stats.ino}`,
      () => 'none',
    );
    if (stamp === seen.stamp) return seen.agents;
    try {
      const lock = stamp === 'none' ? null : await readLockFile(file, shown);
      const agents = new Map(Object.entries(lock?.agents ?? {}).map(([id, agent]) => [id, identityOf({ id, ...agent })]));
      seen = { stamp, agents };
    } catch (error) {
      log.warn('cannot read the lock file; pinning as before', { file: shown, error: error instanceof Error ? error.message : String(error) });
    }
    return seen.agents;
  };
}

/** A tier's own agent identity, as the manifest names it: what it attests as the source of what it sends. */
export function tierAgent(project: LoadedConfig, specialists: readonly Specialist[], tier: TierSlug): AgentIdentity | null {
  const agent = manifestOf({ config: project.config, specialists, runtimeVersion: runtimeVersion() }).agents.find((candidate) => candidate.id === tier);
  return agent === undefined ? null : identityOf(agent);
}
