import { cellPrefixes, connect, metricStoreReader, readTierflowEnv, servedCells } from '@tierflow/runtime/admin';
import { runtimeOptionsFromEnv, type TierWorker } from '@tierflow/runtime';
import { startTelemetry } from '@tierflow/telemetry';
import { findConfigFile, loadConfig, shownPath } from '../config/config-file.js';
import { projectCalibration, tierSetup } from '../config/tier-setup.js';
import { checkGovernanceAtStart, tierAgent } from '../config/governance.js';
import { guardExit } from '../exit-guard.js';
import { EXIT, type CliIo } from '../io.js';
import { linkToParent } from '../parent-link.js';
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
  // Started by `tierflow up`: beat to it, and end when it ends.
  const parent = linkToParent();
  let started = false;
  // Gone while this worker still starts (waiting for Redis, say): nothing runs yet, so it just exits.
  void parent?.gone.then(() => {
    if (!started) process.exit(EXIT.invalid);
  });
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
  // A bad file stops the worker here too, naming the file and field; so does one that ends the process as it loads.
  const file = findConfigFile(options.config ?? env.TIERFLOW_CONFIG, process.cwd());
  const disarm = guardExit(
    (code) =>
      `${tier} worker: ${file ? `the project file ${shownPath(file, process.cwd())}` : 'code it loaded'} ended the process (exit status ${code}) while it was loading: a project file must not exit\n`,
  );
  let project: Awaited<ReturnType<typeof loadConfig>>;
  let setup: Awaited<ReturnType<typeof tierSetup>>;
  try {
    project = await loadConfig(file ?? undefined);
    setup = await tierSetup(project);
    // Under governance.require, an agent of this tier the lock file does not list as it runs stops it here.
    await checkGovernanceAtStart(project, setup.specialists, tier, (line) => io.stderr(`${tier} worker: ${line}\n`));
  } finally {
    disarm();
  }
  // Every tier refuses a delegation outside the project's collaboration boundaries, and runs the project's handoff interceptors.
  const calibrate = projectCalibration(project.config, env);
  const runtime = {
    ...fromEnv,
    ...(project.config.boundaries ? { boundaries: project.config.boundaries } : {}),
    ...(calibrate === undefined ? {} : { calibration: calibrate }),
    // Every receiver checks an attestation it is given; under `governance.require`, one without is refused (docs/protocol.md#attestations).
    // A governed tier attests as the agent the manifest names it, and pins the tier below to the
    // lock file's entry for it (docs/operations.md#governed-handoffs).
    ...(project.config.governance
      ? {
          governance: {
            ...fromEnv.governance,
            require: project.config.governance.require === true || fromEnv.governance.require,
            agent: tierAgent(project, setup.specialists, tier),
            pins: setup.dispatcher.lockedAgents ?? null,
          },
        }
      : {}),
    interceptors: setup.interceptors,
  };
  let onSignal: (signal: NodeJS.Signals) => void = () => undefined;
  const stop = new Promise<string>((resolve) => {
    onSignal = resolve;
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
    void parent?.gone.then(() => resolve('its tierflow up is gone'));
  });
  // Stopped while it still starts (waiting for Redis, say): nothing runs yet, so it just exits.
  void stop.then((reason) => {
    if (started) return;
    io.stderr(`${tier} worker stopped (${reason}) before it started\n`);
    process.exit(EXIT.ok);
  });
  const concurrency = options.concurrency ?? env.TIERFLOW_CONCURRENCY;
  // Spans go to OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318) as `tierflow-<tier>`;
  // metrics to the exporters OTEL_METRICS_EXPORTER names (docs/operations.md#metrics).
  // …and, whatever they name, into the deployment metric store that `tierflow serve` reads, by a
  // connection of their own: the SDK takes its readers before the worker has any.
  const metricsOn = env.TIERFLOW_METRICS === 'on';
  const storeRedis = metricsOn ? connect(runtime, (message) => io.stderr(`${tier} worker metrics: ${message}\n`)) : null;
  const storeReader = storeRedis ? [metricStoreReader({ redis: storeRedis, prefix: cellPrefixes(runtime)[cells[0]!]!, writer: tier, intervalMs: env.TIERFLOW_METRICS_INTERVAL_MS })] : [];
  const telemetry = await startTelemetry({ serviceName: `tierflow-${tier}`, metrics: metricsOn, metricReaders: storeReader });
  let worker: TierWorker;
  try {
    worker = await START_TIER[tier]({ options: { runtime, cells, metricsUrl: telemetry.metricsUrl, ...(concurrency ? { concurrency } : {}) }, env, project, setup });
  } catch (error) {
    // Failed to start: a signal must end the process again, and nothing may keep it alive.
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await telemetry.shutdown();
    storeRedis?.disconnect();
    await setup.close();
    throw error;
  }
  started = true;
  // The Monitor marks a run's trace exported once the collector took its spans (`tierflow trace`).
  telemetry.onExported((traceIds) => void worker.tracesExported(traceIds));
  if (project.file) io.stderr(`${tier} worker configured by ${project.file}\n`);
  const cellsServed = runtime.cells > 1 ? `, cells ${cells.join(',')} of ${runtime.cells}` : '';
  const metricsServed = telemetry.metricsUrl ? `, metrics on ${telemetry.metricsUrl}` : '';
  io.stderr(`${tier} worker ready on ${runtime.prefix}:${tier}${cellsServed}${metricsServed} (pid ${process.pid})\n`);
  parent?.ready();
  const reason = await stop;
  io.stderr(`${tier} worker stopping (${reason}): finishing running jobs\n`);
  // An operator whose worker takes long to stop is told what it still waits for.
  const slow = setInterval(() => io.stderr(`${tier} worker still stopping: waiting for ${worker.stillClosing().join('; ') || 'its connections to close'}\n`), SLOW_STOP_NOTICE_MS);
  try {
    await worker.close();
    // The MCP servers its specialists' tools run on, once no job may call them.
    await setup.close();
  } finally {
    clearInterval(slow);
  }
  // Shut down first, so the last figures reach the store before its connection goes.
  await telemetry.shutdown();
  storeRedis?.disconnect();
  const unexported = telemetry.unexportedSpans;
  io.stderr(`${tier} worker stopped${unexported > 0 ? ` (${unexported} spans not exported)` : ''}\n`);
  return EXIT.ok;
}
