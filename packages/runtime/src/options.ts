import { resolveRetryOptions, type CascadeThresholds, type RetryOptions } from '@tierflow/core';
import { TierflowError } from '@tierflow/protocol';
import { REDIS_TLS_ENV, redisTlsFromEnv } from './connection.js';
import { cascadeFromEnv, resolveAuditTtlMs, resolveCascade } from './handoff-options.js';
import type { TierSlug } from './queues.js';
import { isTlsUrl, redactUrl, redisUrlProblem } from './redis-url.js';
import { signingFromEnv, type SigningConfig } from './signing-keys.js';

/** Where and how a Tierflow deployment keeps its queues. */
export interface RuntimeOptions {
  /** redis:// or rediss:// URL. */
  readonly redisUrl: string;
  /** Key prefix of every queue and Beads key; hash-tagged so one deployment lives in one Cluster slot. */
  readonly prefix: string;
  readonly retry: RetryOptions;
  /** How long finished jobs (and so `tierflow status` trees) are kept. */
  readonly keepFinishedMs: number;
  /** How long the de-duplication record of a handled message is kept (seed 000: one hour). */
  readonly dedupTtlMs: number;
  /**
   * A worker holds each running job's lock this long and renews it at half of it; a crashed
   * worker's job is taken back once the lock has lapsed and a stalled-job check runs (every
   * `stalledIntervalMs`): so within about lock + interval. BullMQ's defaults: 30 s and 30 s.
   */
  readonly lockDurationMs: number;
  readonly stalledIntervalMs: number;
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
  /** The bounds of the confidence cascade check on upstream outcomes (seed 003); null: no check. */
  readonly cascade: CascadeThresholds | null;
  /** Message signing (TIERFLOW_SIGNING_KEY); null: nothing is signed and nothing is checked. */
  readonly signing: SigningConfig | null;
}

export const DEFAULT_PREFIX = '{tierflow}';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
/** Three: a worker killed under a job once or twice may be bad luck (a lost node, a kill -9); three times running the same job rarely is. */
export const DEFAULT_MAX_CRASHES = 3;

export interface RuntimeOptionsInput {
  readonly redisUrl?: string;
  readonly prefix?: string;
  readonly retry?: Partial<RetryOptions>;
  readonly keepFinishedMs?: number;
  readonly dedupTtlMs?: number;
  readonly lockDurationMs?: number;
  readonly stalledIntervalMs?: number;
  readonly maxCrashes?: number;
  readonly beadsTtlMs?: number;
  readonly auditTtlMs?: number;
  readonly cascade?: Partial<CascadeThresholds> | null;
  readonly signing?: SigningConfig | null;
}

/** Fills defaults and checks the options; the prefix must carry a `{hash tag}` so flows work on Redis Cluster. */
export function resolveRuntimeOptions(input: RuntimeOptionsInput = {}): RuntimeOptions {
  const prefix = input.prefix ?? DEFAULT_PREFIX;
  if (!/^[^:{}]*\{[^{}:]+\}[^:{}]*$/.test(prefix)) {
    throw TierflowError.permanent(`prefix ${JSON.stringify(prefix)} must contain one {hash tag} and no ":", e.g. "{tierflow}"`, {
      code: 'invalid_config',
    });
  }
  const redisUrl = input.redisUrl ?? DEFAULT_REDIS_URL;
  const urlProblem = redisUrlProblem(redisUrl);
  if (urlProblem) throw TierflowError.permanent(`REDIS_URL ${redactUrl(redisUrl)} ${urlProblem}`, { code: 'invalid_config' });
  const maxCrashes = input.maxCrashes ?? DEFAULT_MAX_CRASHES;
  if (!(Number.isSafeInteger(maxCrashes) && maxCrashes >= 1)) {
    throw TierflowError.permanent(`TIERFLOW_MAX_CRASHES (${maxCrashes}) must be a whole number, 1 or more`, { code: 'invalid_config' });
  }
  return {
    redisUrl,
    prefix,
    retry: resolveRetryOptions(input.retry),
    keepFinishedMs: input.keepFinishedMs ?? 24 * 3600_000,
    dedupTtlMs: input.dedupTtlMs ?? 3600_000,
    lockDurationMs: input.lockDurationMs ?? 30_000,
    stalledIntervalMs: input.stalledIntervalMs ?? 30_000,
    maxCrashes,
    beadsTtlMs: input.beadsTtlMs ?? 24 * 3600_000,
    auditTtlMs: resolveAuditTtlMs(input.auditTtlMs),
    cascade: resolveCascade(input.cascade),
    signing: input.signing ?? null,
  };
}

/**
 * Reads the runtime options from the environment: REDIS_URL, TIERFLOW_PREFIX, and for retries
 * TIERFLOW_RETRY_ATTEMPTS, TIERFLOW_RETRY_BASE_MS, TIERFLOW_RETRY_MAX_MS, and for crash recovery
 * TIERFLOW_LOCK_DURATION_MS, TIERFLOW_STALLED_INTERVAL_MS and TIERFLOW_MAX_CRASHES, and for retention
 * TIERFLOW_KEEP_FINISHED_MS, TIERFLOW_BEADS_TTL_MS, TIERFLOW_DEDUP_TTL_MS and TIERFLOW_AUDIT_TTL_MS,
 * for the cascade check TIERFLOW_CASCADE_CHECK=off and TIERFLOW_CASCADE_PROCEED/_FLAG/_REVIEW, and for signing
 * TIERFLOW_SIGNING_KEY, TIERFLOW_SIGNING_KEY_PREVIOUS and TIERFLOW_MAX_CLOCK_SKEW_MS. For one tier's
 * worker (`tier`), the Redis URL may be its own: see {@link redisUrlFromEnv}.
 */
export function runtimeOptionsFromEnv(env: NodeJS.ProcessEnv = process.env, scope: { readonly tier?: TierSlug } = {}): RuntimeOptions {
  const retry = {
    ...numberFrom(env, 'TIERFLOW_RETRY_ATTEMPTS', 'attempts'),
    ...numberFrom(env, 'TIERFLOW_RETRY_BASE_MS', 'baseDelayMs'),
    ...numberFrom(env, 'TIERFLOW_RETRY_MAX_MS', 'maxDelayMs'),
  };
  const redisUrl = redisUrlFromEnv(env, scope.tier);
  checkTlsEnv(env, redisUrl);
  return resolveRuntimeOptions({
    ...(redisUrl ? { redisUrl } : {}),
    ...(env.TIERFLOW_PREFIX ? { prefix: env.TIERFLOW_PREFIX } : {}),
    retry,
    ...numberFrom(env, 'TIERFLOW_LOCK_DURATION_MS', 'lockDurationMs'),
    ...numberFrom(env, 'TIERFLOW_STALLED_INTERVAL_MS', 'stalledIntervalMs'),
    ...numberFrom(env, 'TIERFLOW_MAX_CRASHES', 'maxCrashes'),
    ...numberFrom(env, 'TIERFLOW_KEEP_FINISHED_MS', 'keepFinishedMs'),
    ...numberFrom(env, 'TIERFLOW_BEADS_TTL_MS', 'beadsTtlMs'),
    ...numberFrom(env, 'TIERFLOW_DEDUP_TTL_MS', 'dedupTtlMs'),
    ...numberFrom(env, 'TIERFLOW_AUDIT_TTL_MS', 'auditTtlMs'),
    cascade: cascadeFromEnv(env),
    signing: signingFromEnv(env),
  });
}

/**
 * Where a process connects, most specific first, so one environment can serve four tiers that
 * log in as four Redis users:
 * 1. for a tier's worker, `REDIS_URL_<TIER>` (`REDIS_URL_FLEET=redis://fleet:secret@host:6379`), as it is;
 * 2. else REDIS_URL, its user and password replaced by TIERFLOW_REDIS_USERNAME and
 *    TIERFLOW_REDIS_PASSWORD when those are set (a password kept out of the URL).
 * `undefined` when nothing is set (the default URL applies).
 */
export function redisUrlFromEnv(env: NodeJS.ProcessEnv, tier?: TierSlug): string | undefined {
  const own = tier ? env[`REDIS_URL_${tier.toUpperCase()}`] : undefined;
  if (own) return own;
  const username = env.TIERFLOW_REDIS_USERNAME || undefined;
  const password = env.TIERFLOW_REDIS_PASSWORD || undefined;
  if (!username && !password) return env.REDIS_URL || undefined;
  return withCredentials(env.REDIS_URL || DEFAULT_REDIS_URL, username, password);
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
function checkTlsEnv(env: NodeJS.ProcessEnv, redisUrl: string | undefined): void {
  const named = Object.values(REDIS_TLS_ENV).filter((name) => env[name]);
  if (named.length === 0) return;
  if (!isTlsUrl(redisUrl ?? DEFAULT_REDIS_URL)) {
    throw TierflowError.permanent(`${named.join(', ')} set, but the Redis URL is not rediss://`, { code: 'invalid_config' });
  }
  redisTlsFromEnv(env);
}

function numberFrom<K extends string>(env: NodeJS.ProcessEnv, name: string, key: K): Partial<Record<K, number>> {
  const text = env[name];
  if (text === undefined || text === '') return {};
  const value = Number(text);
  if (!Number.isFinite(value)) throw TierflowError.permanent(`${name}=${JSON.stringify(text)} is not a number`, { code: 'invalid_config' });
  return { [key]: value } as Partial<Record<K, number>>;
}
