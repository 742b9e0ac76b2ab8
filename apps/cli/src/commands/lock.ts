import { AgentBlocks, agentBlocksPrefix, connectReachable, readTierflowVars } from '@tierflow/runtime/admin';
import { ConfigError, runtimeOptionsFromEnv } from '@tierflow/runtime';
import { loadConfig } from '../config/config-file.js';
import { governanceOf, type GovernanceState } from '../config/governance.js';
import { acceptAgent, describeDifference, lockOf, writeLockFile } from '../config/lock-file.js';
import { tierSetup } from '../config/tier-setup.js';
import { EXIT, type CliIo } from '../io.js';

export interface LockOptions {
  /** The project file; TIERFLOW_CONFIG, else tierflow.config.* here, when left out. */
  readonly config?: string;
  /** Compare only: exit 1 listing each difference. */
  readonly check?: boolean;
  /** Reconcile one agent: its current entry into the lock, and its block lifted. */
  readonly accept?: string;
}

/**
 * `tierflow lock [--check | --accept <agent>]` (docs/operations.md#governed-handoffs): writes the
 * lock file of the project's agents, as a package lock is written and committed; `--check`
 * compares it with the agents as they are now (for CI); `--accept` reconciles one agent after a
 * change was vetted, and lifts the block a hash mismatch put on it.
 */
export async function lockCommand(options: LockOptions, io: CliIo): Promise<number> {
  if (options.check && options.accept !== undefined) {
    io.stderr('lock: --check and --accept cannot be used together\n');
    return EXIT.unusable;
  }
  const project = await loadConfig(options.config ?? readTierflowVars(process.env, ['TIERFLOW_CONFIG']).TIERFLOW_CONFIG);
  const setup = await tierSetup(project);
  let state: GovernanceState;
  try {
    state = await governanceOf(project, setup.specialists);
  } finally {
    await setup.close();
  }
  // A manifest with a bad version or a clash of ids cannot be locked, nor checked.
  if (state.manifest.problems.length > 0) throw new ConfigError([...state.manifest.problems]);
  if (options.check) return check(state, io);
  if (options.accept !== undefined) return accept(state, options.accept, io);
  await writeLockFile(state.lockFile, lockOf(state.manifest));
  const changed = state.differences.map((difference) => `  ${describeDifference(difference)}\n`).join('');
  io.stdout(
    `wrote ${state.shown}: ${state.manifest.agents.length} agents${state.lock === null ? '' : changed === '' ? ', unchanged' : `, changed:\n${changed}`}${state.lock === null || changed === '' ? '\n' : ''}`,
  );
  return EXIT.ok;
}

function check(state: GovernanceState, io: CliIo): number {
  if (state.lock === null) {
    io.stderr(`${state.shown}: no lock file: run \`tierflow lock\` to write it\n`);
    return EXIT.invalid;
  }
  if (state.differences.length === 0) {
    io.stdout(`${state.shown}: ${state.manifest.agents.length} agents, in step\n`);
    return EXIT.ok;
  }
  io.stderr(`${state.shown} differs from the agents as they are now:\n${state.differences.map((difference) => `  ${describeDifference(difference)}\n`).join('')}`);
  io.stderr('run `tierflow lock` to lock them all as they are, or `tierflow lock --accept <agent>` for one\n');
  return EXIT.invalid;
}

async function accept(state: GovernanceState, id: string, io: CliIo): Promise<number> {
  const accepted = acceptAgent(state.lock, state.manifest, id);
  if (accepted === null) {
    io.stderr(`no agent "${id}" in the manifest (its agents: ${state.manifest.agents.map((agent) => agent.id).join(', ')})\n`);
    return EXIT.invalid;
  }
  await writeLockFile(state.lockFile, accepted.lock);
  const changes = accepted.changes.map((change) => `  ${describeDifference(change)}: accepted\n`).join('');
  io.stdout(changes === '' ? `${id}: already in step with ${state.shown}\n` : `${state.shown}: ${id} updated\n${changes}`);
  // The block is the deployment's: lifted in Redis, whatever the lock said.
  const runtime = runtimeOptionsFromEnv(process.env);
  const redis = await connectReachable(runtime);
  try {
    const lifted = await new AgentBlocks(redis, agentBlocksPrefix(runtime)).lift(id);
    io.stdout(lifted === null ? `${id} was not blocked\n` : `lifted the block on ${id} (since ${lifted.since}, found by run ${lifted.root_id})\n`);
  } finally {
    redis.disconnect();
  }
  return EXIT.ok;
}
