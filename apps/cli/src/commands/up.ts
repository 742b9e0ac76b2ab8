import { readTierflowVars, runtimeOptionsFromEnv } from '@tierflow/runtime';
import { projectEnv } from '../config/project-env.js';
import { EXIT, type CliIo } from '../io.js';
import { superviseTiers } from '../supervise-tiers.js';
import { ALL_TIERS } from '../tiers.js';

/**
 * `tierflow up`: the four tier workers as four processes, their output prefixed by tier. A worker
 * that exits on its own is restarted with back-off; SIGINT or SIGTERM stops them all cleanly.
 * Each worker loads the same project configuration. Exits 2 when a worker cannot run as configured.
 */
export async function upCommand(options: { readonly config?: string }, io: CliIo): Promise<number> {
  // Each worker would refuse a bad environment or configuration and exit 2: say so once, and start none.
  for (const tier of ALL_TIERS) runtimeOptionsFromEnv(process.env, { tier });
  const env = await projectEnv(options.config ?? readTierflowVars(process.env, ['TIERFLOW_CONFIG']).TIERFLOW_CONFIG, process.env);
  if (env.TIERFLOW_CONFIG) io.stderr(`up: configured by ${env.TIERFLOW_CONFIG}\n`);
  const tiers = superviseTiers(env, {
    line: (tier, line) => io.stdout(`${tier.padEnd(10)} | ${line}\n`),
    note: (text) => io.stderr(`up: ${text}`),
  });
  const stop = (): void => tiers.stop();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const code = await tiers.done;
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
  return code === 0 ? EXIT.ok : code === 2 ? EXIT.unusable : EXIT.invalid;
}
