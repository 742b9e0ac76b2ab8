import { DEFAULT_CASCADE_THRESHOLDS, DEFAULT_RETRY_OPTIONS } from '@tierflow/core';
import { DEFAULT_ERROR_POLICY, deploymentIdSchema, FORMAT_MISMATCH_POLICIES, LOW_CONFIDENCE_POLICIES, MAX_DELEGATION_DEPTH, TIMEOUT_POLICIES } from '@tierflow/protocol';
import { z } from 'zod';
import { DEFAULT_RECORD_MODE, RECORD_MODES } from './record-mode.js';
import { DEFAULT_AUDIT_TTL_MS, METRIC_STORE_INTERVAL_MS } from './runtime-settings.js';
import { DEFAULT_INPUT_LIMITS } from '../messages/input-limits.js';
import { envChoice, envHttpUrl, envProbability, envRedisUrl, envText, envWhole, MAX_TIMER_MS } from './env-values.js';
import { readEnv, type EnvProblem } from './read-env.js';
import { DEFAULT_CONCURRENCY, DEFAULT_MAX_CLOCK_SKEW_MS, DEFAULT_PREFIX, DEFAULT_REDIS_URL, prefixProblem, RUNTIME_DEFAULTS, RUNTIME_RANGES } from './runtime-settings.js';

const R = RUNTIME_RANGES;

/**
 * Every environment variable of the runtime and the tiers, with its type, bounds and default:
 * the one place the environment is read. Empty values count as unset. A variable without a
 * default here has one where it is used (noted), or none. Code that needs only a few of them
 * reads those through the same schema ({@link readTierflowVars}).
 */
export const tierflowEnvSchema = z.object({
  // Where Redis is.
  REDIS_URL: envRedisUrl().default(DEFAULT_REDIS_URL),
  /** A tier's worker connects here instead, as it is (its own Redis user). */
  REDIS_URL_MONITOR: envRedisUrl().optional(),
  REDIS_URL_ARCHITECT: envRedisUrl().optional(),
  REDIS_URL_DISPATCHER: envRedisUrl().optional(),
  REDIS_URL_FLEET: envRedisUrl().optional(),
  /** Seed nodes of a Redis Cluster, `host:port,host:port`: REDIS_URL then gives only the scheme, user and password. */
  TIERFLOW_REDIS_CLUSTER: envText().optional(),
  /** Put into REDIS_URL, replacing its own: a password kept out of the URL. */
  TIERFLOW_REDIS_USERNAME: envText().optional(),
  TIERFLOW_REDIS_PASSWORD: envText().optional(),
  /** PEM files for rediss://, read at start (see `redisTlsFromEnv`). */
  TIERFLOW_REDIS_TLS_CA: envText().optional(),
  TIERFLOW_REDIS_TLS_CERT: envText().optional(),
  TIERFLOW_REDIS_TLS_KEY: envText().optional(),
  TIERFLOW_PREFIX: envText()
    .superRefine((prefix, ctx) => {
      const problem = prefixProblem(prefix);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .default(DEFAULT_PREFIX),
  TIERFLOW_CELLS: envWhole(R.cells).default(1),
  /** The deployment's stable id, which work handed to a remote Tierflow carries (docs/operations.md#deployment-id); derived from REDIS_URL's host and the prefix when unset. */
  TIERFLOW_DEPLOYMENT_ID: deploymentIdSchema.optional(),
  /** How long a client command waits for Redis's first answer before it gives up (exit 3). */
  TIERFLOW_CONNECT_TIMEOUT_MS: envWhole(R.connectTimeoutMs).default(RUNTIME_DEFAULTS.connectTimeoutMs),

  // Retries, crash recovery, retention.
  TIERFLOW_RETRY_ATTEMPTS: envWhole(R.retryAttempts).default(DEFAULT_RETRY_OPTIONS.attempts),
  TIERFLOW_RETRY_BASE_MS: envWhole(R.retryDelayMs).default(DEFAULT_RETRY_OPTIONS.baseDelayMs),
  TIERFLOW_RETRY_MAX_MS: envWhole(R.retryDelayMs).default(DEFAULT_RETRY_OPTIONS.maxDelayMs),
  TIERFLOW_LOCK_DURATION_MS: envWhole(R.lockDurationMs).default(RUNTIME_DEFAULTS.lockDurationMs),
  TIERFLOW_STALLED_INTERVAL_MS: envWhole(R.stalledIntervalMs).default(RUNTIME_DEFAULTS.stalledIntervalMs),
  /** How often each worker writes its heartbeat for `tierflow workers`. */
  TIERFLOW_HEARTBEAT_MS: envWhole(R.heartbeatMs).default(RUNTIME_DEFAULTS.heartbeatMs),
  TIERFLOW_MAX_CRASHES: envWhole(R.maxCrashes).default(RUNTIME_DEFAULTS.maxCrashes),
  TIERFLOW_KEEP_FINISHED_MS: envWhole(R.keepFinishedMs).default(RUNTIME_DEFAULTS.keepFinishedMs),
  TIERFLOW_DEDUP_TTL_MS: envWhole(R.dedupTtlMs).default(RUNTIME_DEFAULTS.dedupTtlMs),
  TIERFLOW_BEADS_TTL_MS: envWhole(R.beadsTtlMs).default(RUNTIME_DEFAULTS.beadsTtlMs),
  TIERFLOW_AUDIT_TTL_MS: envWhole(R.auditTtlMs).default(DEFAULT_AUDIT_TTL_MS),
  /** How much is recorded of what each node did: full, metadata (sizes, hashes, timings) or none (docs/operations.md#recording). */
  TIERFLOW_RECORD: envChoice(RECORD_MODES).default(DEFAULT_RECORD_MODE),
  /** How long a run waits for answers to its questions (0: it ends needs_clarification at once). */
  TIERFLOW_ANSWER_WAIT_MS: envWhole(R.answerWaitMs).default(RUNTIME_DEFAULTS.answerWaitMs),
  /** How long a run waits for its blocked work to be unblocked (0: it ends blocked at once). */
  TIERFLOW_BLOCKED_WAIT_MS: envWhole(R.blockedWaitMs).default(RUNTIME_DEFAULTS.blockedWaitMs),

  // The confidence cascade check (docs/protocol.md#confidence-cascade).
  TIERFLOW_CASCADE_CHECK: envChoice(['on', 'off']).default('on'),
  TIERFLOW_CASCADE_PROCEED: envProbability().default(DEFAULT_CASCADE_THRESHOLDS.proceed),
  TIERFLOW_CASCADE_FLAG: envProbability().default(DEFAULT_CASCADE_THRESHOLDS.flag),
  TIERFLOW_CASCADE_REVIEW: envProbability().default(DEFAULT_CASCADE_THRESHOLDS.review),

  // What the tiers learn from their history (docs/operations.md#history).
  /** Whether Dispatchers calibrate their Fleet leaves' confidence against history; the project file's `history.calibrate`, else on, when unset. */
  TIERFLOW_CALIBRATION: envChoice(['on', 'off']).optional(),
  /** The half-life of the Monitor's history (ms): what happened that long ago counts half; the project file's `history.halfLife`, else a day, when unset. */
  TIERFLOW_HISTORY_HALF_LIFE_MS: envWhole(R.historyHalfLifeMs).optional(),

  // The error policy of delegations that set none (docs/protocol.md#error-policies).
  TIERFLOW_ON_LOW_CONFIDENCE: envChoice(LOW_CONFIDENCE_POLICIES).default(DEFAULT_ERROR_POLICY.on_low_confidence),
  TIERFLOW_ON_FORMAT_MISMATCH: envChoice(FORMAT_MISMATCH_POLICIES).default(DEFAULT_ERROR_POLICY.on_format_mismatch),
  TIERFLOW_ON_TIMEOUT: envChoice(TIMEOUT_POLICIES).default(DEFAULT_ERROR_POLICY.on_timeout),

  /** The clock window of a deployment that signs. */
  /** The signing key set (`tierflow keys generate`); unset: nothing is signed or checked. */
  TIERFLOW_KEYS_DIR: envText().optional(),
  TIERFLOW_MAX_CLOCK_SKEW_MS: envWhole(R.maxClockSkewMs).default(DEFAULT_MAX_CLOCK_SKEW_MS),

  // How much one objective may carry (see `checkObjectiveSize`).
  TIERFLOW_MAX_OBJECTIVE_BYTES: envWhole(R.maxObjectiveBytes).default(DEFAULT_INPUT_LIMITS.maxObjectiveBytes),
  TIERFLOW_MAX_SUBTASKS: envWhole(R.maxSubtasks).default(DEFAULT_INPUT_LIMITS.maxSubtasks),

  // OpenTelemetry's GenAI instrumentation settings, by their standard names (see resolveGenAiOptions).
  /** Comma-separated opt-ins; `gen_ai_latest_experimental` gives the newest GenAI conventions instead of v1.41's. */
  OTEL_SEMCONV_STABILITY_OPT_IN: envText().optional(),
  /** `true` (any case): model calls' spans carry prompts and answers; anything else, as OpenTelemetry reads its booleans, leaves them off. */
  OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: envText().optional(),

  /** `silent` mutes the runtime's log lines on stderr. */
  TIERFLOW_LOG: envChoice(['info', 'silent']).default('info'),
  /** Whether each worker records metrics (docs/operations.md#metrics); the telemetry package reads it as given here. */
  TIERFLOW_METRICS: envChoice(['on', 'off']).default('on'),
  /** How often each worker adds what it recorded to the deployment metric store (docs/operations.md#the-deployment-metric-store), ms. */
  TIERFLOW_METRICS_INTERVAL_MS: envWhole({ unit: 'milliseconds', min: 1_000, max: 300_000 }).default(METRIC_STORE_INTERVAL_MS),

  // The `tierflow` command.
  /** `tierflow acl apply`'s admin connection, unless --admin-url names one. */
  ADMIN_REDIS_URL: envRedisUrl().optional(),
  /** Where `tierflow trace` points; the command's default (http://localhost:16686) when unset. */
  JAEGER_URL: envText().optional(),
  /**
   * The bearer token `tierflow serve` requires (`Authorization: Bearer …`); required whenever it
   * listens beyond loopback. At least 16 characters: a guessable token protects nothing.
   */
  TIERFLOW_API_TOKEN: z.string().min(16, { message: 'must be at least 16 characters' }).optional(),
  /** Host names, comma-separated, that requests to `tierflow serve` may name besides the address it serves (a proxy's public name); the server checks each. */
  TIERFLOW_SERVE_ALLOWED_HOSTS: envText().optional(),
  /** Addresses or ranges (`10.0.0.0/8`), comma-separated, of proxies whose X-Forwarded-* headers `tierflow serve` believes; the server checks each. */
  TIERFLOW_SERVE_TRUSTED_PROXIES: envText().optional(),
  /** 1: Bull Board under `tierflow serve` may change the queues (retry, add, clean, pause…); read-only otherwise. */
  TIERFLOW_SERVE_QUEUE_ACTIONS: envChoice(['0', '1'])
    .default('0')
    .transform((flag) => flag === '1'),
  /** How many deployments work may have crossed when it reaches `tierflow serve`'s A2A endpoint (docs/protocol.md#delegation-across-deployments); the server's default (1) when unset. */
  TIERFLOW_SERVE_A2A_MAX_DEPTH: envWhole({ unit: 'count', min: 0, max: MAX_DELEGATION_DEPTH }).optional(),
  /** 1: `tierflow serve`'s /metrics answers without the token (for a Prometheus that cannot send one); it asks for the token otherwise. */
  TIERFLOW_SERVE_METRICS_PUBLIC: envChoice(['0', '1'])
    .default('0')
    .transform((flag) => flag === '1'),

  // Model endpoints (LLM specialists), by the names OpenAI's clients use.
  /** An OpenAI-compatible endpoint, e.g. `http://127.0.0.1:8000/v1`. */
  OPENAI_BASE_URL: envHttpUrl().optional(),
  OPENAI_API_KEY: envText().optional(),

  /**
   * How long `tierflow up` lets a worker go without a beat over its IPC channel (one a second, from
   * its event loop) before it kills it (SIGKILL) and restarts it; up's default (60 s) when unset.
   */
  TIERFLOW_LIVENESS_MS: envWhole({ unit: 'milliseconds', min: 2_000, max: MAX_TIMER_MS }).optional(),
  /** The project file `tierflow up`, `worker` and `demo` load, unless --config names one; else tierflow.config.* in the working directory. */
  TIERFLOW_CONFIG: envText().optional(),

  // A tier's worker (`tierflow worker <tier>`).
  /** Jobs per worker process; the worker's default (DEFAULT_CONCURRENCY, 32) when unset. */
  TIERFLOW_CONCURRENCY: envWhole(R.concurrency).optional(),
  /** The default timeout each tier gives what it delegates; the tier's own (120 s, 60 s, 30 s: docs/protocol.md#timeouts) when unset. */
  TIERFLOW_ARCHITECT_TIMEOUT_MS: envWhole(R.delegationTimeoutMs).optional(),
  TIERFLOW_DISPATCHER_TIMEOUT_MS: envWhole(R.delegationTimeoutMs).optional(),
  TIERFLOW_FLEET_TIMEOUT_MS: envWhole(R.delegationTimeoutMs).optional(),

  // The Fleet process (`node apps/fleet/dist/main.js`) and its built-in `sim` specialist.
  FLEET_CONCURRENCY: envWhole(R.concurrency).default(DEFAULT_CONCURRENCY),
  /** Expiry of the Fleet's outputs and logs in Beads; the store's default when unset. */
  FLEET_OUTPUT_TTL_MS: envWhole(R.beadsTtlMs).optional(),
  /** Caps the `sim` specialist's runs at once per process, to drill throttling; no cap when unset. */
  TIERFLOW_SIM_MAX_CONCURRENT: envWhole(R.concurrency).optional(),
  /** 1: count completions per message, for drills. */
  TIERFLOW_TRACK_COMPLETIONS: envChoice(['0', '1'])
    .default('0')
    .transform((flag) => flag === '1'),
});

/** The environment, read and typed. */
export type TierflowEnv = z.output<typeof tierflowEnvSchema>;

/** Pairs that must keep their order, low first: the retry cap, the cascade bounds. */
const ORDERED: readonly (readonly [keyof TierflowEnv, keyof TierflowEnv])[] = [
  ['TIERFLOW_RETRY_BASE_MS', 'TIERFLOW_RETRY_MAX_MS'],
  ['TIERFLOW_CASCADE_FLAG', 'TIERFLOW_CASCADE_PROCEED'],
  ['TIERFLOW_CASCADE_REVIEW', 'TIERFLOW_CASCADE_FLAG'],
];

function orderProblems(env: TierflowEnv, set: ReadonlySet<string>): EnvProblem[] {
  const shown = (name: keyof TierflowEnv): string => `${name} (${String(env[name])}${set.has(name) ? '' : ', the default'})`;
  return ORDERED.flatMap(([low, high]) => {
    if (env.TIERFLOW_CASCADE_CHECK === 'off' && low.startsWith('TIERFLOW_CASCADE')) return [];
    if ((env[low] as number) <= (env[high] as number)) return [];
    // Blame the variable the operator set; with both set, the upper one.
    return set.has(high) ? [{ name: high, message: `must be at least ${shown(low)}` }] : [{ name: low, message: `must be at most ${shown(high)}` }];
  });
}

/**
 * Reads every Tierflow variable from `env`.
 *
 * @throws ConfigError (code `invalid_config`) naming every bad variable and why, e.g.
 *   `TIERFLOW_LOCK_DURATION_MS="0": must be a whole number of milliseconds, at least 1000 and at most 2147483647`.
 */
export function readTierflowEnv(env: NodeJS.ProcessEnv = process.env): TierflowEnv {
  return readEnv(tierflowEnvSchema, env, orderProblems);
}

/**
 * Only the variables named, read and checked as {@link readTierflowEnv} reads them, for code that
 * needs a few and should not fail on a problem in the others.
 *
 * @throws ConfigError (code `invalid_config`) naming every bad one of them.
 */
export function readTierflowVars<K extends keyof TierflowEnv>(env: NodeJS.ProcessEnv, names: readonly K[]): Pick<TierflowEnv, K> {
  const some = z.object(Object.fromEntries(names.map((name) => [name, tierflowEnvSchema.shape[name]])));
  // The same fields, so the same output; zod cannot type a pick by a generic key list.
  return readEnv(some, env) as unknown as Pick<TierflowEnv, K>;
}
