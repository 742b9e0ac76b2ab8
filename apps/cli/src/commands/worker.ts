import { readTierflowEnv, runtimeOptionsFromEnv, servedCells, type TierWorker } from '@tierflow/runtime';
import { startTelemetry } from '@tierflow/telemetry';
import { loadConfig } from '../config/config-file.js';
import { tierSetup } from '../config/tier-setup.js';
import { EXIT, type CliIo } from '../io.js';
import { isTierSlug, START_TIER, ALL_TIERS } from '../tiers.js';

/** How often a worker slow to stop says what it still waits for. */
const SLOW_STOP_NOTICE_MS = 10_000;

export interface WorkerOptions {
  readonly concurrency?: number;
  /** The cells to serve, e.g. `0,2` (docs/operations.md#cells); every cell when left out. */
  readonly cells?: string;
  /** The project file; TIERFLOW_CONFIG, else tierflow.config.* in the working directory, when left out. */
  readonly config?: string;
}

/**
 * `tierflow worker <tier>`: runs one tier in the foreground until SIGINT or SIGTERM, then stops
 * taking jobs and lets the running ones finish, so nothing is lost.
 */
export async function workerCommand(tier: string, options: WorkerOptions, io: CliIo): Promise<number> {
  if (!isTierSlug(tier)) {
    io.stderr(`unknown tier "${tier}"; the tiers are: ${ALL_TIERS.join(', ')}\n`);
    return EXIT.unusable;
  }
  // REDIS_URL_<TIER> lets one environment give each tier its own Redis user. A bad variable
  // throws here, before anything starts: `tierflow` prints each problem and exits 2.
  const fromEnv = runtimeOptionsFromEnv(process.env, { tier });
  const env = readTierflowEnv(process.env);
  // A cell the deployment does not have stops the worker here, as a bad variable does.
  const cells = servedCells(options.cells, fromEnv.cells);
  // A bad file stops the worker here too, naming the file and field.
  const project = await loadConfig(options.config ?? env.TIERFLOW_CONFIG);
  const setup = await tierSetup(project);
  // Every tier refuses a delegation outside the project's collaboration boundaries, and runs the project's handoff interceptors.
  const runtime = { ...fromEnv, ...(project.config.boundaries ? { boundaries: project.config.boundaries } : {}), interceptors: setup.interceptors };
  let onSignal: (signal: NodeJS.Signals) => void = () => undefined;
  const stop = new Promise<NodeJS.Signals>((resolve) => {
    onSignal = resolve;
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  const concurrency = options.concurrency ?? env.TIERFLOW_CONCURRENCY;
  // Spans go to OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318) as `tierflow-<tier>`.
  const telemetry = await startTelemetry({ serviceName: `tierflow-${tier}` });
  let worker: TierWorker;
  try {
    worker = await START_TIER[tier]({ options: { runtime, cells, ...(concurrency ? { concurrency } : {}) }, env, project, setup });
  } catch (error) {
    // Failed to start: a signal must end the process again, and nothing may keep it alive.
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await telemetry.shutdown();
    throw error;
  }
  if (project.file) io.stderr(`${tier} worker configured by ${project.file}\n`);
  io.stderr(`${tier} worker ready on ${runtime.prefix}:${tier}${runtime.cells > 1 ? `, cells ${cells.join(',')} of ${runtime.cells}` : ''} (pid ${process.pid})\n`);
  const signal = await stop;
  io.stderr(`${tier} worker stopping (${signal}): finishing running jobs\n`);
  // An operator whose worker takes long to stop is told what it still waits for.
  const slow = setInterval(() => io.stderr(`${tier} worker still stopping: waiting for ${worker.stillClosing().join('; ') || 'its connections to close'}\n`), SLOW_STOP_NOTICE_MS);
  try {
    await worker.close();
  } finally {
    clearInterval(slow);
  }
  await telemetry.shutdown();
  const unexported = telemetry.unexportedSpans;
  io.stderr(`${tier} worker stopped${unexported > 0 ? ` (${unexported} spans not exported)` : ''}\n`);
  return EXIT.ok;
}
