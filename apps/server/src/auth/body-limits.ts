import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';

/** What a sign-in, a cancel or an answer needs: a token, a reason, an answer's text. */
export const SMALL_BODY_BYTES = 64 * 1024;

/** Room around an objective for the rest of its file (JSON's quoting, plan, constraints). */
export const OBJECTIVE_SLACK_BYTES = 64 * 1024;

export interface BodyLimits {
  /** The largest objective file (`TIERFLOW_MAX_OBJECTIVE_BYTES`, plus room). */
  readonly objectiveBytes: number;
  /** Paths that set their own limit (the A2A endpoint answers in JSON-RPC's shape). */
  readonly ownLimit: ReadonlySet<string>;
}

const UNREAD = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The most bytes a request's body may have: an objective's worth to enqueue (the runs API, and
 * Bull Board's jobs when it may act), a small one for everything else that reads a body, nothing
 * to enforce for methods whose body nothing reads. Null: the route limits its own. Pure.
 */
export function bodyLimitOf(method: string, path: string, limits: BodyLimits): number | null {
  if (UNREAD.has(method.toUpperCase()) || limits.ownLimit.has(path)) return null;
  if (path === '/api/runs' || path === '/queues' || path.startsWith('/queues/')) return limits.objectiveBytes;
  return SMALL_BODY_BYTES;
}

/**
 * Every body that may be read is bounded before it is: a declared Content-Length over the limit
 * is answered 413 at once, without reading a byte of it; a chunked body is read only up to the
 * limit. Hono's own body limit does the reading.
 */
export function bodyLimits(limits: BodyLimits): MiddlewareHandler {
  const bySize = new Map<number, MiddlewareHandler>();
  const limiter = (maxSize: number): MiddlewareHandler => {
    let limit = bySize.get(maxSize);
    if (!limit) {
      limit = bodyLimit({ maxSize, onError: (c) => c.json({ error: { code: 'input_too_large', message: `the request body is over ${maxSize} bytes` } }, 413) });
      bySize.set(maxSize, limit);
    }
    return limit;
  };
  return async (c, next) => {
    const maxSize = bodyLimitOf(c.req.method, c.req.path, limits);
    return maxSize === null ? next() : limiter(maxSize)(c, next);
  };
}
