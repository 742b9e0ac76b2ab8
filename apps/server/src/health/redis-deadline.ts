import type { MiddlewareHandler } from 'hono';
import type { RedisClient } from '@tierflow/beads';
import { awaitReachable } from '@tierflow/runtime/admin';

/** Where the server's Redis is, as messages show it (password hidden), and how long a request may wait for it. */
export interface RedisHealth {
  readonly redis: RedisClient;
  readonly where: string;
  readonly tls: boolean;
  readonly timeoutMs: number;
}

/**
 * API requests that Redis does not let finish within the connect timeout answer 503 `unavailable`,
 * naming Redis and what its connection is doing, instead of waiting with the client for as long
 * as Redis is away (commands queue until it is back). The request's own work goes on in the
 * background and is dropped when it ends.
 */
export function redisDeadline(health: RedisHealth): MiddlewareHandler {
  return async (c, next) => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), health.timeoutMs)));
    const done = next().then(() => 'done' as const);
    try {
      if ((await Promise.race([done, late])) === 'done') return;
    } finally {
      clearTimeout(timer);
    }
    // Whatever the handler does later is not this request's answer any more.
    done.catch(() => undefined);
    c.res = c.json({ error: { code: 'unavailable', message: unanswered(health) } }, 503);
  };
}

/**
 * `GET /readyz`: 200 `{ ok: true }` once Redis answers a PING within the connect timeout, else 503
 * with why, for a load balancer or an orchestrator to hold traffic back. `/healthz` only says the
 * process answers.
 */
export function readiness(health: RedisHealth): () => Promise<{ readonly ok: true } | { readonly ok: false; readonly error: string }> {
  return async () => {
    try {
      await awaitReachable(health.redis, { where: health.where, tls: health.tls, timeoutMs: health.timeoutMs });
      return { ok: true };
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
  };
}

function unanswered(health: RedisHealth): string {
  const seconds = `${Math.round(health.timeoutMs / 100) / 10} s`;
  const state = health.redis.status === 'ready' ? '' : ` (its connection is ${health.redis.status})`;
  return `Redis at ${health.where} did not answer within ${seconds}${state}: try again once it is back`;
}
