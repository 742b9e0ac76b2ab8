import { readTierflowEnv, runtimeOptionsFromEnv, type TierWorker } from '@tierflow/runtime';
import { startTelemetry } from '@tierflow/telemetry';
import { loadConfig } from '../config/config-file.js';
import { tierSetup } from '../config/tier-setup.js';
import { EXIT, type CliIo } from '../io.js';
import { isTierSlug, START_TIER, ALL_TIERS } from '../tiers.js';

export interface WorkerOptions {
  readonly concurrency?: number;
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
  const runtime = runtimeOptionsFromEnv(process.env, { tier });
  const env = readTierflowEnv(process.env);
  // A bad file stops the worker here too, naming the file and field.
  const project = await loadConfig(options.config ?? env.TIERFLOW_CONFIG);
  const setup = await tierSetup(project);
  let onSignal: (signal: NodeJS.Signals) => void = () => undefined;
  const stop = new Promise<NodeJS.Signals>((resolve) => {
    onSignal = resolve;
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  const concurrency = options.concurrency ?? env.TIERFLOW_CONCURRENCY;
  // Spans go to OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318) as `tierflow-<tier>`.
  const telemetry = startTelemetry({ serviceName: `tierflow-${tier}` });
  let worker: TierWorker;
  try {
    worker = await START_TIER[tier]({ options: { runtime, ...(concurrency ? { concurrency } : {}) }, env, project, setup });
  } catch (error) {
    // Failed to start: a signal must end the process again, and nothing may keep it alive.
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await telemetry.shutdown();
    throw error;
  }
  if (project.file) io.stderr(`${tier} worker configured by ${project.file}\n`);
  io.stderr(`${tier} worker ready on ${runtime.prefix}:${tier} (pid ${process.pid})\n`);
  const signal = await stop;
  io.stderr(`${tier} worker stopping (${signal}): finishing running jobs\n`);
  await worker.close();
  await telemetry.shutdown();
  const unexported = telemetry.unexportedSpans;
  io.stderr(`${tier} worker stopped${unexported > 0 ? ` (${unexported} spans not exported)` : ''}\n`);
  return EXIT.ok;
}
