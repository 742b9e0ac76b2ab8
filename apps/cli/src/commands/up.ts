import { readTierflowVars } from '@tierflow/runtime/admin';
import { runtimeOptionsFromEnv } from '@tierflow/runtime';
import { findConfigFile, shownPath } from '../config/config-file.js';
import { projectEnv } from '../config/project-env.js';
import { guardExit } from '../exit-guard.js';
import { EXIT, type CliIo } from '../io.js';
import { DEFAULT_RESTART_POLICY } from '../restart-policy.js';
import { superviseTiers } from '../supervise-tiers.js';
import { ALL_TIERS } from '../tiers.js';

/**
 * `tierflow up`: the four tier workers as four processes, their output prefixed by tier. A worker
 * that exits on its own, or falls silent (TIERFLOW_LIVENESS_MS without a beat), is restarted with
 * back-off; SIGINT or SIGTERM stops them all cleanly, and the workers end with `up` however it
 * ends. Each worker loads the same project configuration. Exits 2 when a worker cannot run as
 * configured, or when the project file ends the process.
 */
export async function upCommand(options: { readonly config?: string }, io: CliIo): Promise<number> {
  // Each worker would refuse a bad environment or configuration and exit 2: say so once, and start none.
  for (const tier of ALL_TIERS) runtimeOptionsFromEnv(process.env, { tier });
  const vars = readTierflowVars(process.env, ['TIERFLOW_CONFIG', 'TIERFLOW_LIVENESS_MS']);
  const explicit = options.config ?? vars.TIERFLOW_CONFIG;
  const file = findConfigFile(explicit, process.cwd());
  // The project file's code runs here too: should it end the process, `up` must not exit 0 with nothing running.
  let phase: 'loading' | 'running' = 'loading';
  const named = file ? ` (the project file ${shownPath(file, process.cwd())})` : '';
  const disarm = guardExit((code) => {
    if (phase === 'loading') return `up: code it loaded${named} ended the process (exit status ${code}) while up was loading it: a project file must not exit; nothing was started\n`;
    // Later, only a clean exit that up did not make goes unreported otherwise.
    return code === 0 ? `up: code it loaded${named} ended the process (exit status 0), not up: its workers stop with it\n` : null;
  });
  try {
    const warnings: string[] = [];
    const env = await projectEnv(explicit, process.env, (line) => warnings.push(line));
    phase = 'running';
    if (env.TIERFLOW_CONFIG) io.stderr(`up: configured by ${env.TIERFLOW_CONFIG}\n`);
    for (const line of warnings) io.stderr(`up: ${line}\n`);
    const policy = { ...DEFAULT_RESTART_POLICY, livenessMs: vars.TIERFLOW_LIVENESS_MS ?? DEFAULT_RESTART_POLICY.livenessMs };
    const tiers = superviseTiers(
      env,
      {
        line: (tier, line) => io.stdout(`${tier.padEnd(10)} | ${line}\n`),
        note: (text) => io.stderr(`up: ${text}`),
      },
      ALL_TIERS,
      policy,
    );
    const stop = (): void => tiers.stop();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    const code = await tiers.done;
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    return code === 0 ? EXIT.ok : code === 2 ? EXIT.unusable : EXIT.invalid;
  } finally {
    disarm();
  }
}
