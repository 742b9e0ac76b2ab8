import { MAX_COUNT, MAX_RETENTION_MS, MAX_TIMER_MS, type WholeRange } from './env-values.js';

/** How many cells a deployment may have: each costs every worker process a few connections. */
export const MAX_CELLS = 256;

/** Thirty days: long enough to answer for a run after the fact, short enough that the streams do not pile up. */
export const DEFAULT_AUDIT_TTL_MS = 30 * 24 * 3600_000;

/**
 * The defaults and bounds of the runtime's settings, shared by the environment's schema and by
 * {@link resolveRuntimeOptions}, so a setting is bounded the same however it is given.
 */

export const DEFAULT_PREFIX = '{tierflow}';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
/** Three: a worker killed under a job once or twice may be bad luck (a lost node, a kill -9); three times running the same job rarely is. */
export const DEFAULT_MAX_CRASHES = 3;

/**
 * Jobs a worker process runs at once. A pass spends much of its time waiting on Redis (or a model
 * server), so a process can keep many open, and their commands then share socket writes and Redis
 * reads. Raising it from 8 to 32 gave 11–18 % more roots a second on the bench, with less CPU a
 * root in the workers and in Redis (test/bench/RESULTS.md, 2026-11-28 evening).
 */
export const DEFAULT_CONCURRENCY = 32;

/** ±5 minutes, the usual allowance for clocks kept by NTP. */
export const DEFAULT_MAX_CLOCK_SKEW_MS = 5 * 60_000;

export const RUNTIME_DEFAULTS = {
  keepFinishedMs: 24 * 3600_000,
  dedupTtlMs: 3600_000,
  lockDurationMs: 30_000,
  stalledIntervalMs: 30_000,
  maxCrashes: DEFAULT_MAX_CRASHES,
  beadsTtlMs: 24 * 3600_000,
  /** A worker's heartbeat: gone from `tierflow workers` after three missed ones (15 s). */
  heartbeatMs: 5_000,
  /** How long a run waits for a person to answer its questions before it ends needs_clarification. */
  answerWaitMs: 24 * 3600_000,
  /** How long a run waits for its blocked work to be unblocked before it ends blocked. */
  blockedWaitMs: 24 * 3600_000,
  /** How long a client command waits for Redis's first answer before it gives up (exit 3). */
  connectTimeoutMs: 5_000,
} as const;

const ms = (min: number, max: number): WholeRange => ({ unit: 'milliseconds', min, max });
const count = (max: number): WholeRange => ({ unit: 'count', min: 1, max });

export const RUNTIME_RANGES = {
  /** BullMQ renews a lock at half its duration: under a second, renewing is most of the work. A timer. */
  lockDurationMs: ms(1_000, MAX_TIMER_MS),
  /** A Redis script every interval: more often than ten times a second only burns Redis. A timer. */
  stalledIntervalMs: ms(100, MAX_TIMER_MS),
  /** One SET a beat: ten a second at most. A timer. */
  heartbeatMs: ms(100, MAX_TIMER_MS),
  /** A timer; under a tenth of a second a healthy Redis across a network may not make it. */
  connectTimeoutMs: ms(100, MAX_TIMER_MS),
  keepFinishedMs: ms(1, MAX_RETENTION_MS),
  dedupTtlMs: ms(1, MAX_RETENTION_MS),
  beadsTtlMs: ms(1, MAX_RETENTION_MS),
  auditTtlMs: ms(1, MAX_RETENTION_MS),
  maxCrashes: count(100),
  /** 0: a question ends the run at once. At most six days, so a waiting run's records (kept a week) outlive the wait. */
  answerWaitMs: ms(0, 6 * 24 * 3600_000),
  /** 0: blocked work ends the run at once. At most six days, as for answers. */
  blockedWaitMs: ms(0, 6 * 24 * 3600_000),
  retryAttempts: count(100),
  /** A retry at once, or days away, is not a retry policy; a delay becomes a timer. */
  retryDelayMs: ms(1, MAX_TIMER_MS),
  /** The default timeout a tier gives what it delegates; it becomes the child's timer. */
  delegationTimeoutMs: ms(1, MAX_TIMER_MS),
  maxClockSkewMs: ms(1, MAX_TIMER_MS),
  concurrency: count(MAX_COUNT),
  /** Redis keeps a string of at most 512 MiB. */
  maxObjectiveBytes: { unit: 'bytes', min: 1024, max: 512 * 1024 * 1024 },
  maxSubtasks: count(100_000),
  /** Each cell costs every worker process a few connections. */
  cells: count(MAX_CELLS),
  /** The Monitor's history half-life: a second at least (history that forgets faster learns nothing), ten years at most. */
  historyHalfLifeMs: ms(1_000, MAX_RETENTION_MS),
} as const satisfies Record<string, WholeRange>;

/** Why `prefix` cannot be a key prefix, or null: it must carry one `{hash tag}` so flows work on Redis Cluster. */
export function prefixProblem(prefix: string): string | null {
  return /^[^:{}]*\{[^{}:]+\}[^:{}]*$/.test(prefix) ? null : 'must be a key prefix with one {hash tag} and no ":", e.g. "{tierflow}"';
}

/** How often a worker adds what it recorded to the deployment metric store, ms (TIERFLOW_METRICS_INTERVAL_MS). */
export const METRIC_STORE_INTERVAL_MS = 10_000;
