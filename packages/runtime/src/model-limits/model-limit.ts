import { TierflowError } from '@tierflow/protocol';
import { z } from 'zod';
import type { ModelAdmission, ModelLimit } from '../policy/model-calls.js';

/** The window every limit is counted over outside tests: a minute, as providers state theirs. */
export const LIMIT_WINDOW_MS = 60_000;
/** How long a call waiting for a concurrent slot waits before it asks again: a slot's end is not known in advance. */
export const SLOT_POLL_MS = 100;
/**
 * The longest a call waiting for room sleeps, when settles tell waiters of the room they free:
 * it asks again then even unnamed (a lost notice), well within {@link SLOT_POLL_MS} and
 * {@link WAITER_GRACE_MS}, so it keeps its place in turn.
 */
export const ROOM_WAIT_MS = 500;
/** How long past the wait it was told a waiter keeps its place in turn without asking again: one that died, or gave up unseen, frees it then. */
export const WAITER_GRACE_MS = 1_000;
/**
 * The shortest wait that parks a pass rather than holding its worker (ModelParking): a shorter one
 * costs less where it is than a round through BullMQ's delayed set and a fresh pass.
 */
export const PARK_AFTER_MS = 1_000;
/** How long a slot is held when its call has no deadline: a process that dies holding one frees it then. */
export const SLOT_LEASE_MS = 600_000;

/** A model's limits as a project file or an option gives them: each optional, a whole number above 0. */
export const modelLimitSchema = z.strictObject({
  /** Requests per minute, across every process. */
  rpm: z.int().positive().optional(),
  /** Tokens per minute (prompt and answer), across every process. */
  tpm: z.int().positive().optional(),
  /** Requests in flight at once, across every process. */
  concurrent: z.int().positive().optional(),
});
export type ModelLimitOptions = z.input<typeof modelLimitSchema> & {
  /** The window's length, for tests only: a minute when left out. */
  readonly windowMs?: number;
  /** The name the limits are kept under, shared by every model whose limits name it (an endpoint's); the model's own name when left out. */
  readonly sharedBy?: string;
};

/**
 * The one resolve step of a model's limits: each left out is none, the window a minute. Pure.
 *
 * @throws TierflowError (code `invalid_config`) for a limit that is not a whole number above 0.
 */
export function resolveModelLimit(options: ModelLimitOptions | undefined): ModelLimit {
  const { windowMs, sharedBy, ...limits } = options ?? {};
  const parsed = modelLimitSchema.safeParse(limits);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'limits'}: ${issue.message}`);
    throw TierflowError.permanent(`model limits: ${problems.join('; ')}`, { code: 'invalid_config' });
  }
  if (windowMs !== undefined && !(Number.isSafeInteger(windowMs) && windowMs > 0)) {
    throw TierflowError.permanent(`model limits: windowMs (${windowMs}) must be a whole number above 0`, { code: 'invalid_config' });
  }
  if (sharedBy !== undefined && !(typeof sharedBy === 'string' && sharedBy.length > 0 && sharedBy.length <= 512)) {
    throw TierflowError.permanent('model limits: sharedBy must be a name of 1 to 512 characters', { code: 'invalid_config' });
  }
  const { rpm, tpm, concurrent } = parsed.data;
  return { rpm: rpm ?? null, tpm: tpm ?? null, concurrent: concurrent ?? null, windowMs: windowMs ?? LIMIT_WINDOW_MS, sharedBy: sharedBy ?? null };
}

/** Whether a limit holds anything: a model without one is still paused by a busy server, but reserves nothing. */
export function limits(limit: ModelLimit): boolean {
  return limit.rpm !== null || limit.tpm !== null || limit.concurrent !== null;
}

/** What a call refused by a limit does next: wait and ask again, or answer `throttled` when the wait would pass its deadline. Pure. */
export function nextTry(admission: Extract<ModelAdmission, { granted: false }>, now: number, deadline: number | null): { readonly kind: 'wait'; readonly ms: number } | { readonly kind: 'throttled' } {
  const ms = Math.max(1, Math.ceil(admission.waitMs));
  return deadline !== null && now + ms >= deadline ? { kind: 'throttled' } : { kind: 'wait', ms };
}

/**
 * How long a call refused room (a slot, its turn) sleeps when a notice may wake it: up to
 * {@link ROOM_WAIT_MS}, but asking again `pollMs` before its deadline, so a slot that frees late
 * is still seen before the call answers `throttled`; never less than `pollMs`. Pure.
 */
export function roomWaitMs(pollMs: number, now: number, deadline: number | null): number {
  const beforeDeadline = deadline === null ? ROOM_WAIT_MS : deadline - now - pollMs;
  return Math.max(pollMs, Math.min(ROOM_WAIT_MS, beforeDeadline));
}

/** How long a granted request holds its concurrent slot at most: to its deadline (and a little), else {@link SLOT_LEASE_MS}. Pure. */
export function slotLeaseMs(now: number, deadline: number | null): number {
  return deadline === null ? SLOT_LEASE_MS : Math.max(1_000, deadline - now + 5_000);
}

/** The tokens a request reserves: its prompt's estimate and its output limit, whole and not below 0. Pure. */
export function reservedTokens(estimate: { readonly tokens_in: number; readonly tokens_out: number }): number {
  const whole = (value: number) => (Number.isFinite(value) && value > 0 ? Math.ceil(value) : 0);
  return whole(estimate.tokens_in) + whole(estimate.tokens_out);
}

/**
 * A model's keys, under the deployment's prefix with one hash tag per model: the deployment's tag
 * with the model inside it (`{tierflow}` → `{tierflow:limit:gpt-4o}`), so one script's keys share
 * a slot on a Redis Cluster and different models spread over the shards. The name is
 * percent-encoded, so no brace of its own can change the tag.
 */
export function modelLimitKeys(prefix: string, model: string) {
  const tagged = prefix.replace('}', `:limit:${encodeURIComponent(model)}}`);
  return {
    /** A sorted set: each request in the window, by when it was granted (ms). */
    window: `${tagged}:window`,
    /** A hash: each request's tokens in the window, and `#total` their sum. */
    tokens: `${tagged}:tokens`,
    /** A sorted set: each request in flight, by when its slot lapses (ms). */
    slots: `${tagged}:slots`,
    /** A string that expires when the model's pause ends. */
    pause: `${tagged}:pause`,
    /** A sorted set: the callers waiting for their turn, by priority, their run's turn and arrival. */
    queue: `${tagged}:queue`,
    /** A hash: each run's count of calls that joined the wait (`run:<root id>`), and `#seq`, the arrivals. */
    turns: `${tagged}:turns`,
    /** A sorted set: each waiter by when it loses its place unless it asks again. */
    leases: `${tagged}:leases`,
  };
}

/** A Redis glob matching every model's limit keys of the deployment under `prefix` (escaped for a glob already): for an ACL rule. */
export function modelLimitsGlob(escapedPrefix: string): string {
  return `${escapedPrefix.replace('}', ':limit:*}')}:*`;
}
