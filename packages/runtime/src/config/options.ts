import { DEFAULT_RECORD_MODE, RECORD_MODES, type RecordMode } from './record-mode.js';
import { resolveRetryOptions, type Boundaries, type CascadeThresholds, type RetryOptions } from '@tierflow/core';
import {
  agentIdentitySchema,
  deploymentIdSchema,
  formatValidationError,
  resolveErrorPolicy,
  TierflowError,
  type AgentIdentity,
  type ErrorPolicy,
  type ResolvedErrorPolicy,
  type TierSlug,
  validateWith,
} from '@tierflow/protocol';
import { z } from 'zod';
import { DEFAULT_AUDIT_TTL_MS } from './runtime-settings.js';
import { derivedDeploymentId } from './deployment-id.js';
import { wholeNumber } from './env-values.js';
import { ConfigError } from './read-env.js';
import { DEFAULT_PREFIX, DEFAULT_REDIS_URL, prefixProblem, RUNTIME_DEFAULTS, RUNTIME_RANGES } from './runtime-settings.js';
import { readTierflowEnv, type TierflowEnv } from './tierflow-env.js';
import { REDIS_TLS_ENV, redisTlsFromEnv } from '../redis/connection.js';
import { resolveCascade } from './handoff-options.js';
import { DEFAULT_INPUT_LIMITS, type InputLimits } from '../messages/input-limits.js';
import { isTlsUrl, redactUrl, redisUrlProblem } from '../redis/redis-url.js';
import { parseClusterSeeds } from '../redis/cluster.js';
import { signingFromEnv, type SigningConfig } from '../security/signing-keys.js';
import { interceptorProblems, type HandoffInterceptor } from '../policy/handoff.js';
import { DEFAULT_GEN_AI_OPTIONS, GEN_AI_CONVENTIONS, resolveGenAiOptions, type GenAiOptions } from '../observability/gen-ai/conventions.js';

/** Where and how a Tierflow deployment keeps its queues. */
export interface RuntimeOptions {
  /** redis:// or rediss:// URL: the server, or with {@link redisCluster} only the scheme, user and password. */
  readonly redisUrl: string;
  /** Seed nodes (`host:port`) of a Redis Cluster to connect through (TIERFLOW_REDIS_CLUSTER); null: the URL's one server. */
  readonly redisCluster: readonly string[] | null;
  /** Key prefix of every queue and Beads key; hash-tagged so one cell lives in one Cluster slot. */
  readonly prefix: string;
  /**
   * How many cells the deployment's runs are spread over, each under a hash tag of its own
   * (`{tierflow:0}` …), so a Redis Cluster spreads them over its shards; 1 (the default): one cell,
   * under the prefix itself (cells/cells.ts, docs/operations.md#cells).
   */
  readonly cells: number;
  readonly retry: RetryOptions;
  /** How long finished jobs (and so `tierflow status` trees) are kept. */
  readonly keepFinishedMs: number;
  /** How long the de-duplication record of a handled message is kept: one hour by default (docs/protocol.md#de-duplication). */
  readonly dedupTtlMs: number;
  /**
   * A worker holds each running job's lock this long and renews it at half of it; a crashed
   * worker's job is taken back once the lock has lapsed and a stalled-job check runs (every
   * `stalledIntervalMs`): so within about lock + interval. BullMQ's defaults: 30 s and 30 s.
   */
  readonly lockDurationMs: number;
  readonly stalledIntervalMs: number;
  /** How often a worker writes its heartbeat (`tierflow workers`); it counts as gone after three missed. */
  readonly heartbeatMs: number;
  /**
   * Poison work: a job whose worker died this many times while running it (BullMQ took it back
   * from a dead worker that often) is answered `failed`, error_type `worker_crashed`, without
   * running its handler again. Default 3.
   */
  readonly maxCrashes: number;
  /** Default lifetime of what tiers write to Beads (outputs, logs, run records). */
  readonly beadsTtlMs: number;
  /** How long a run's audit trail is kept past its last entry (default 30 days). */
  readonly auditTtlMs: number;
  /** The bounds of the confidence cascade check on upstream outcomes (docs/protocol.md#confidence-cascade); null: no check. */
  readonly cascade: CascadeThresholds | null;
  /** The error policy of delegations that set none, field by field (docs/protocol.md#error-policies). */
  readonly errorPolicy: ResolvedErrorPolicy;
  /** Who may hand work to whom (docs/protocol.md#collaboration-boundaries), from the project file; null: no bounds. */
  readonly boundaries: Boundaries | null;
  /** Middleware on every message the tiers send and receive (docs/protocol.md#handoff-interceptors), in order; none by default. */
  readonly interceptors: readonly HandoffInterceptor[];
  /** Message signing (TIERFLOW_KEYS_DIR): the key set; null: nothing is signed and nothing is checked. */
  readonly signing: SigningConfig | null;
  /** How much one objective may carry: clients refuse more, and so does the Monitor. */
  readonly limits: InputLimits;
  /**
   * How long a run whose questions reach the root waits for a person's answer (`tierflow answer`)
   * before it ends `needs_clarification`; 0 ends it at once. Default 24 h (docs/protocol.md#clarification).
   */
  readonly answerWaitMs: number;
  /**
   * How long a run whose blocked work reaches the root waits for it to be unblocked (`tierflow
   * unblock`) before it ends `blocked`; 0 ends it at once. Default 24 h (docs/protocol.md#blocked-work).
   */
  readonly blockedWaitMs: number;
  /**
   * How long a client (`TierflowClient`, the `tierflow` commands) waits for Redis's first
   * answer before it gives up, saying why (`RedisUnreachableError`). Default 5 s. Workers wait as long as it takes.
   */
  readonly connectTimeoutMs: number;
  /**
   * How much is recorded of what each node did (docs/operations.md#recording): `full` (inputs,
   * outcomes, passes, model calls with prompts and answers), `metadata` (sizes, hashes and timings
   * only) or `none`. Default `full`.
   */
  readonly record: RecordMode;
  /**
   * The GenAI semantic conventions of the spans and model-call metrics (docs/operations.md#traces-in-the-genai-conventions):
   * which version (OTEL_SEMCONV_STABILITY_OPT_IN) and whether model calls' spans carry prompts and answers
   * (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT). Default v1.41, without content.
   */
  readonly genAi: GenAiOptions;
  /**
   * Whether a Dispatcher calibrates each Fleet leaf's confidence against its specialist's history
   * before the confidence cascade and its policy read it, keeping the reported value as
   * `reported_confidence` (docs/protocol.md#calibrated-confidence). Default true.
   */
  readonly calibration: boolean;
  /**
   * The deployment's stable id (TIERFLOW_DEPLOYMENT_ID), which work handed to a remote Tierflow
   * carries so that it cannot come back (docs/protocol.md#delegation-across-deployments); by
   * default derived from the Redis address and the prefix ({@link derivedDeploymentId}).
   */
  readonly deploymentId: string;
  /** Governed handoffs (docs/protocol.md#attestations): whether receivers refuse a message without an attestation, and this tier's own agent identity. */
  readonly governance: Governance;
}

/** How a tier attests what it sends and checks what it receives (docs/protocol.md#attestations). */
export interface Governance {
  /** Refuse a delegation or outcome that carries no attestation (the project file's `governance.require`). Default false: one that carries one is still checked. */
  readonly require: boolean;
  /** This tier's own agent identity, named as the source of what it sends; null: none. */
  readonly agent: AgentIdentity | null;
  /**
   * The identities the deployment's lock file pins its agents to, by id (read afresh when the file
   * changes): a tier pins what it sends the tier above the Fleet to the lock's entry for that tier
   * (docs/operations.md#governed-handoffs); null: no pins.
   */
  readonly pins: AgentPins | null;
}

/** Reads the lock file's identities, by agent id. */
export type AgentPins = () => Promise<ReadonlyMap<string, AgentIdentity>>;

export interface RuntimeOptionsInput {
  readonly redisUrl?: string;
  readonly redisCluster?: readonly string[] | null;
  readonly prefix?: string;
  readonly cells?: number;
  readonly retry?: Partial<RetryOptions>;
  readonly keepFinishedMs?: number;
  readonly dedupTtlMs?: number;
  readonly lockDurationMs?: number;
  readonly stalledIntervalMs?: number;
  readonly heartbeatMs?: number;
  readonly maxCrashes?: number;
  readonly beadsTtlMs?: number;
  readonly auditTtlMs?: number;
  readonly cascade?: Partial<CascadeThresholds> | null;
  readonly errorPolicy?: ErrorPolicy;
  readonly boundaries?: Boundaries | null;
  readonly interceptors?: readonly HandoffInterceptor[];
  readonly signing?: SigningConfig | null;
  readonly limits?: Partial<InputLimits>;
  readonly answerWaitMs?: number;
  readonly blockedWaitMs?: number;
  readonly connectTimeoutMs?: number;
  readonly record?: RecordMode;
  readonly genAi?: Partial<GenAiOptions>;
  readonly calibration?: boolean;
  readonly deploymentId?: string;
  readonly governance?: { readonly require?: boolean; readonly agent?: AgentIdentity | null; readonly pins?: AgentPins | null };
}

const R = RUNTIME_RANGES;

// The numbers a library caller passes, bounded as the environment's are.
const runtimeNumbersSchema = z.looseObject({
  keepFinishedMs: wholeNumber(R.keepFinishedMs).optional(),
  dedupTtlMs: wholeNumber(R.dedupTtlMs).optional(),
  lockDurationMs: wholeNumber(R.lockDurationMs).optional(),
  stalledIntervalMs: wholeNumber(R.stalledIntervalMs).optional(),
  heartbeatMs: wholeNumber(R.heartbeatMs).optional(),
  maxCrashes: wholeNumber(R.maxCrashes).optional(),
  beadsTtlMs: wholeNumber(R.beadsTtlMs).optional(),
  auditTtlMs: wholeNumber(R.auditTtlMs).optional(),
  answerWaitMs: wholeNumber(R.answerWaitMs).optional(),
  blockedWaitMs: wholeNumber(R.blockedWaitMs).optional(),
  connectTimeoutMs: wholeNumber(R.connectTimeoutMs).optional(),
  cells: wholeNumber(R.cells).optional(),
  record: z.enum(RECORD_MODES).optional(),
  calibration: z.boolean().optional(),
  deploymentId: deploymentIdSchema.optional(),
  genAi: z.strictObject({ conventions: z.enum(GEN_AI_CONVENTIONS).optional(), captureContent: z.boolean().optional() }).optional(),
  limits: z.strictObject({ maxObjectiveBytes: wholeNumber(R.maxObjectiveBytes).optional(), maxSubtasks: wholeNumber(R.maxSubtasks).optional() }).optional(),
  governance: z
    .strictObject({
      require: z.boolean().optional(),
      agent: agentIdentitySchema.nullable().optional(),
      pins: z
        .custom<AgentPins>((value) => typeof value === 'function', { message: 'must be a function' })
        .nullable()
        .optional(),
    })
    .optional(),
});

/**
 * Fills defaults and checks the options; the prefix must carry a `{hash tag}` so flows work on Redis Cluster.
 *
 * @throws ConfigError (code `invalid_config`) naming every bad option; the Redis URL is shown redacted.
 */
export function resolveRuntimeOptions(input: RuntimeOptionsInput = {}): RuntimeOptions {
  const prefix = input.prefix ?? DEFAULT_PREFIX;
  const redisUrl = input.redisUrl ?? DEFAULT_REDIS_URL;
  const numbers = validateWith(runtimeNumbersSchema, input);
  const problems = [
    ...[prefixProblem(prefix)].filter((problem) => problem !== null).map((problem) => `prefix ${JSON.stringify(prefix)}: ${problem}`),
    ...[redisUrlProblem(redisUrl)].filter((problem) => problem !== null).map((problem) => `Redis URL ${redactUrl(redisUrl)}: ${problem}`),
    ...(numbers.ok ? [] : numbers.errors.map(formatValidationError)),
    ...(input.interceptors ?? []).flatMap((interceptor, index) => interceptorProblems(interceptor).map((problem) => `interceptors[${index}]: ${problem}`)),
  ];
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    redisUrl,
    redisCluster: input.redisCluster && input.redisCluster.length > 0 ? [...input.redisCluster] : null,
    prefix,
    cells: input.cells ?? 1,
    retry: resolveRetryOptions(input.retry),
    keepFinishedMs: input.keepFinishedMs ?? RUNTIME_DEFAULTS.keepFinishedMs,
    dedupTtlMs: input.dedupTtlMs ?? RUNTIME_DEFAULTS.dedupTtlMs,
    lockDurationMs: input.lockDurationMs ?? RUNTIME_DEFAULTS.lockDurationMs,
    stalledIntervalMs: input.stalledIntervalMs ?? RUNTIME_DEFAULTS.stalledIntervalMs,
    heartbeatMs: input.heartbeatMs ?? RUNTIME_DEFAULTS.heartbeatMs,
    maxCrashes: input.maxCrashes ?? RUNTIME_DEFAULTS.maxCrashes,
    beadsTtlMs: input.beadsTtlMs ?? RUNTIME_DEFAULTS.beadsTtlMs,
    auditTtlMs: input.auditTtlMs ?? DEFAULT_AUDIT_TTL_MS,
    cascade: resolveCascade(input.cascade),
    errorPolicy: resolveErrorPolicy(input.errorPolicy),
    boundaries: input.boundaries ?? null,
    interceptors: [...(input.interceptors ?? [])],
    signing: input.signing ?? null,
    limits: { ...DEFAULT_INPUT_LIMITS, ...input.limits },
    answerWaitMs: input.answerWaitMs ?? RUNTIME_DEFAULTS.answerWaitMs,
    blockedWaitMs: input.blockedWaitMs ?? RUNTIME_DEFAULTS.blockedWaitMs,
    connectTimeoutMs: input.connectTimeoutMs ?? RUNTIME_DEFAULTS.connectTimeoutMs,
    record: input.record ?? DEFAULT_RECORD_MODE,
    genAi: { ...DEFAULT_GEN_AI_OPTIONS, ...input.genAi },
    calibration: input.calibration ?? true,
    deploymentId: input.deploymentId ?? derivedDeploymentId(redisUrl, input.redisCluster ?? null, prefix),
    governance: { require: input.governance?.require ?? false, agent: input.governance?.agent ?? null, pins: input.governance?.pins ?? null },
  };
}

/**
 * The runtime options from the environment, read through {@link readTierflowEnv} (every variable
 * and its bounds are listed there), with the signing keys from {@link signingFromEnv}. For one
 * tier's worker (`tier`), the Redis URL may be its own: see {@link redisUrlFromEnv}.
 *
 * @throws ConfigError (code `invalid_config`) naming every bad variable, or a TierflowError of that
 *   code for bad signing keys or TLS files.
 */
export function runtimeOptionsFromEnv(env: NodeJS.ProcessEnv = process.env, scope: { readonly tier?: TierSlug } = {}): RuntimeOptions {
  const config = readTierflowEnv(env);
  const redisUrl = redisUrlOf(config, scope.tier);
  checkTlsEnv(env, config, redisUrl);
  return resolveRuntimeOptions({
    redisUrl,
    redisCluster: parseClusterSeeds(config.TIERFLOW_REDIS_CLUSTER),
    prefix: config.TIERFLOW_PREFIX,
    cells: config.TIERFLOW_CELLS,
    retry: { attempts: config.TIERFLOW_RETRY_ATTEMPTS, baseDelayMs: config.TIERFLOW_RETRY_BASE_MS, maxDelayMs: config.TIERFLOW_RETRY_MAX_MS },
    lockDurationMs: config.TIERFLOW_LOCK_DURATION_MS,
    stalledIntervalMs: config.TIERFLOW_STALLED_INTERVAL_MS,
    heartbeatMs: config.TIERFLOW_HEARTBEAT_MS,
    maxCrashes: config.TIERFLOW_MAX_CRASHES,
    keepFinishedMs: config.TIERFLOW_KEEP_FINISHED_MS,
    beadsTtlMs: config.TIERFLOW_BEADS_TTL_MS,
    dedupTtlMs: config.TIERFLOW_DEDUP_TTL_MS,
    auditTtlMs: config.TIERFLOW_AUDIT_TTL_MS,
    cascade: config.TIERFLOW_CASCADE_CHECK === 'off' ? null : { proceed: config.TIERFLOW_CASCADE_PROCEED, flag: config.TIERFLOW_CASCADE_FLAG, review: config.TIERFLOW_CASCADE_REVIEW },
    errorPolicy: { on_low_confidence: config.TIERFLOW_ON_LOW_CONFIDENCE, on_format_mismatch: config.TIERFLOW_ON_FORMAT_MISMATCH, on_timeout: config.TIERFLOW_ON_TIMEOUT },
    signing: signingFromEnv(env),
    limits: { maxObjectiveBytes: config.TIERFLOW_MAX_OBJECTIVE_BYTES, maxSubtasks: config.TIERFLOW_MAX_SUBTASKS },
    answerWaitMs: config.TIERFLOW_ANSWER_WAIT_MS,
    blockedWaitMs: config.TIERFLOW_BLOCKED_WAIT_MS,
    connectTimeoutMs: config.TIERFLOW_CONNECT_TIMEOUT_MS,
    record: config.TIERFLOW_RECORD,
    genAi: resolveGenAiOptions({ semconvOptIn: config.OTEL_SEMCONV_STABILITY_OPT_IN, captureContent: config.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT }),
    // Unset, the project file's `history.calibrate` may decide (the CLI's worker), else the default.
    ...(config.TIERFLOW_CALIBRATION === undefined ? {} : { calibration: config.TIERFLOW_CALIBRATION === 'on' }),
    ...(config.TIERFLOW_DEPLOYMENT_ID === undefined ? {} : { deploymentId: config.TIERFLOW_DEPLOYMENT_ID }),
  });
}

/**
 * The deployment's id from the environment alone, as {@link runtimeOptionsFromEnv} resolves it
 * (TIERFLOW_DEPLOYMENT_ID, else derived from the Redis address and the prefix), for code that
 * needs no more of the options: a Fleet's `a2a` specialist.
 *
 * @throws ConfigError (code `invalid_config`) as {@link readTierflowEnv} does.
 */
export function deploymentIdFromEnv(env: NodeJS.ProcessEnv = process.env, scope: { readonly tier?: TierSlug } = {}): string {
  const config = readTierflowEnv(env);
  return config.TIERFLOW_DEPLOYMENT_ID ?? derivedDeploymentId(redisUrlOf(config, scope.tier), parseClusterSeeds(config.TIERFLOW_REDIS_CLUSTER), config.TIERFLOW_PREFIX);
}

const OWN_REDIS_URL = {
  monitor: 'REDIS_URL_MONITOR',
  architect: 'REDIS_URL_ARCHITECT',
  dispatcher: 'REDIS_URL_DISPATCHER',
  fleet: 'REDIS_URL_FLEET',
} as const satisfies Record<TierSlug, keyof TierflowEnv>;

/**
 * Where a process connects, most specific first, so one environment can serve four tiers that
 * log in as four Redis users:
 * 1. for a tier's worker, `REDIS_URL_<TIER>` (`REDIS_URL_FLEET=redis://fleet:secret@host:6379`), as it is;
 * 2. else REDIS_URL (or the default), its user and password replaced by TIERFLOW_REDIS_USERNAME
 *    and TIERFLOW_REDIS_PASSWORD when those are set (a password kept out of the URL).
 *
 * @throws ConfigError (code `invalid_config`) as {@link readTierflowEnv} does.
 */
export function redisUrlFromEnv(env: NodeJS.ProcessEnv, tier?: TierSlug): string {
  return redisUrlOf(readTierflowEnv(env), tier);
}

function redisUrlOf(config: TierflowEnv, tier: TierSlug | undefined): string {
  const own = tier ? config[OWN_REDIS_URL[tier]] : undefined;
  if (own) return own;
  const { TIERFLOW_REDIS_USERNAME: username, TIERFLOW_REDIS_PASSWORD: password } = config;
  return username === undefined && password === undefined ? config.REDIS_URL : withCredentials(config.REDIS_URL, username, password);
}

/** `url` with its user and/or password replaced; encoded, as ioredis decodes them. */
export function withCredentials(url: string, username: string | undefined, password: string | undefined): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw TierflowError.permanent('REDIS_URL is not a URL', { code: 'invalid_config' });
  }
  if (username !== undefined) parsed.username = encodeURIComponent(username);
  if (password !== undefined) parsed.password = encodeURIComponent(password);
  return parsed.href;
}

// TLS files only make sense for rediss://: with redis:// they would be silently ignored.
function checkTlsEnv(env: NodeJS.ProcessEnv, config: TierflowEnv, redisUrl: string): void {
  const named = Object.values(REDIS_TLS_ENV).filter((name) => config[name] !== undefined);
  if (named.length === 0) return;
  if (!isTlsUrl(redisUrl)) {
    throw TierflowError.permanent(`${named.join(', ')} set, but the Redis URL is not rediss://`, { code: 'invalid_config' });
  }
  redisTlsFromEnv(env);
}
