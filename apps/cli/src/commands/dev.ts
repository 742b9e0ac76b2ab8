import { join } from 'node:path';
import { isTierflowError } from '@tierflow/protocol';
import { connectReachable, readTierflowVars, redactUrl } from '@tierflow/runtime/admin';
import { runtimeOptionsFromEnv } from '@tierflow/runtime';
import { findFreePort } from '@tierflow/testing';
import { shownPath } from '../config/config-file.js';
import { projectEnv } from '../config/project-env.js';
import { openInBrowser, startDashboard, stopSignal, type Dashboard } from '../dashboard.js';
import { startDevRedis, type DevRedis } from '../dev-redis.js';
import { guardExit } from '../exit-guard.js';
import { EXIT, type CliIo } from '../io.js';
import { DEFAULT_RESTART_POLICY } from '../restart-policy.js';
import { superviseTiers } from '../supervise-tiers.js';
import { ALL_TIERS } from '../tiers.js';

export interface DevOptions {
  readonly config?: string;
  /** The dashboard's port on 127.0.0.1 (0: any free one). */
  readonly port: number;
  /** The private redis-server's port; unset or 0: a free one. */
  readonly redisPort?: number;
  readonly open?: boolean;
}

/** Where `dev` keeps its Redis data, under the working directory. */
export const DEV_DATA_DIR = join('.tierflow', 'redis');

/**
 * `tierflow dev`: everything a first deployment needs, on this machine. A redis-server of its own
 * (data kept in .tierflow/redis under the working directory, so runs are there again at the next
 * `dev`), or the Redis at REDIS_URL when set; the four tier workers supervised as `up` supervises
 * them, with the project file `up` would load; the dashboard and API on 127.0.0.1. SIGINT or
 * SIGTERM stops what it started, the workers and the dashboard first and its Redis last. Exits 2 when it cannot
 * start as configured.
 */
export async function devCommand(options: DevOptions, io: CliIo): Promise<number> {
  const redisUrl = process.env.REDIS_URL ? readTierflowVars(process.env, ['REDIS_URL']).REDIS_URL : undefined;
  // Each worker would refuse a bad environment or configuration: say so once, and start nothing.
  for (const tier of ALL_TIERS) runtimeOptionsFromEnv(process.env, { tier });
  const vars = readTierflowVars(process.env, ['TIERFLOW_CONFIG', 'TIERFLOW_LIVENESS_MS']);
  const explicit = options.config ?? vars.TIERFLOW_CONFIG;
  const disarm = guardExit((code) => `dev: code it loaded (a project file) ended the process (exit status ${code}) while dev was loading it: a project file must not exit; nothing was started\n`);
  let env: NodeJS.ProcessEnv;
  const warnings: string[] = [];
  try {
    env = await projectEnv(explicit, process.env, (line) => warnings.push(line));
  } finally {
    disarm();
  }
  if (env.TIERFLOW_CONFIG) io.stderr(`dev: configured by ${shownPath(env.TIERFLOW_CONFIG, process.cwd())}\n`);
  for (const line of warnings) io.stderr(`dev: ${line}\n`);
  const stopped = stopSignal();

  let redis: DevRedis | null = null;
  if (!redisUrl) {
    try {
      redis = await startDevRedis(join(process.cwd(), DEV_DATA_DIR), options.redisPort || (await findFreePort()));
    } catch (error) {
      if (!isTierflowError(error)) throw error;
      io.stderr(`dev: ${error.message}\n`);
      return EXIT.unusable;
    }
    io.stderr(`dev: redis-server (pid ${redis.pid}) on ${redis.url}, its data in ${DEV_DATA_DIR}\n`);
  } else {
    // One it cannot use stops it here, in one line (exit 3), before any worker waits on it.
    (await connectReachable(runtimeOptionsFromEnv(process.env))).disconnect();
    io.stderr(`dev: using the Redis at REDIS_URL (${redactUrl(redisUrl)})\n`);
  }
  // No collector named: no spans, rather than four workers each warning that none can be sent.
  const tracing = env.OTEL_TRACES_EXPORTER !== undefined || env.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined;
  if (!tracing) io.stderr('dev: tracing off (set OTEL_EXPORTER_OTLP_ENDPOINT to send spans to a collector)\n');
  const tierEnv: NodeJS.ProcessEnv = { ...env, REDIS_URL: redis?.url ?? redisUrl, ...(tracing ? {} : { OTEL_TRACES_EXPORTER: 'none' }) };

  const policy = { ...DEFAULT_RESTART_POLICY, livenessMs: vars.TIERFLOW_LIVENESS_MS ?? DEFAULT_RESTART_POLICY.livenessMs };
  const tiers = superviseTiers(tierEnv, { line: (tier, line) => io.stdout(`${tier.padEnd(10)} | ${line}\n`), note: (text) => io.stderr(`dev: ${text}`) }, ALL_TIERS, policy);
  let dashboard: Dashboard | null = null;
  let code: number = EXIT.ok;
  try {
    dashboard = await startDashboard(tierEnv, { host: '127.0.0.1', port: options.port });
    io.stdout(`\nTierflow dev is running. Dashboard: ${dashboard.url}/ (API: ${dashboard.url}/api). Ctrl-C stops everything it started.\n\n`);
    if (options.open) openInBrowser(`${dashboard.url}/`);
    // A signal, or the workers stopping on their own: a configuration error, or the same Ctrl-C
    // reaching them (their process group's) before this process has handled it, which is no error.
    const workers = await Promise.race([stopped.then(() => null), tiers.done]);
    if (workers !== null && workers !== 0) code = workers === 2 ? EXIT.unusable : EXIT.invalid;
  } catch (error) {
    io.stderr(`dev: cannot serve the dashboard on 127.0.0.1:${options.port}: ${(error as Error).message}\n`);
    code = EXIT.unusable;
  } finally {
    // At once, in the same turn as the signal: a worker that Ctrl-C reached too must not be taken for one that crashed, and restarted.
    tiers.stop();
    await dashboard?.stop();
    const workers = await tiers.done;
    if (code === EXIT.ok && workers !== 0) code = workers === 2 ? EXIT.unusable : EXIT.invalid;
    await redis?.stop();
  }
  return code;
}
