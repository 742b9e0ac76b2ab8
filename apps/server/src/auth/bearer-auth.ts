import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { TierLogger } from '@tierflow/runtime';
import { clientAddressOf, requestOrigin, type TrustedProxies } from './client-address.js';
import type { FailureThrottle } from './failure-throttle.js';

/** The cookie the dashboard keeps the token in, so a browser's page loads, event streams and Bull Board carry it. */
export const TOKEN_COOKIE = 'tierflow_token';

/** Where the dashboard signs in: open, since it is where the token is given. */
export const SESSION_PATH = '/api/session';

/**
 * What needs the token: the API, the A2A and MCP endpoints, the raw queues, and /metrics unless it is made
 * public (a Prometheus sends the token as a bearer, `authorization` in its scrape config). Pages,
 * assets, the agent card, the API description and the sign-in do not: they hold nothing of any run.
 */
export function isProtected(path: string, metricsPublic = false): boolean {
  if (path === SESSION_PATH) return false;
  if (path === '/metrics') return !metricsPublic;
  return path.startsWith('/api/') || path === '/a2a' || path.startsWith('/a2a/') || path === '/mcp' || path.startsWith('/mcp/') || path === '/queues' || path.startsWith('/queues/');
}

/** Whether `given` is the token: compared in constant time, through digests, so neither length nor content leaks. */
export function tokenMatches(given: string, token: string): boolean {
  const digest = (text: string): Buffer => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(token));
}

/** The token a request carries: `Authorization: Bearer …`, else the dashboard's cookie. */
function carried(authorization: string | undefined, cookie: string | undefined): string | null {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  return bearer?.[1] ?? cookie ?? null;
}

/** How the token is checked: failures counted per client address, which trusted proxies may name. */
export interface TokenGuard {
  readonly token: string | null;
  readonly throttle: FailureThrottle;
  readonly proxies: TrustedProxies;
  readonly log: TierLogger;
  readonly now?: () => number;
  /** Whether /metrics is let in without the token. */
  readonly metricsPublic?: boolean;
}

/** A client that failed too often: 429, with when to try again, and the token not looked at. */
function throttled(c: Context, waitMs: number): Response {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  c.header('Retry-After', String(seconds));
  return c.json({ error: { code: 'too_many_attempts', message: `too many wrong tokens from this address: try again in ${seconds} s` } }, 429);
}

/**
 * Lets a protected request in only with the token. A request with a wrong token counts against
 * its client's address (see {@link FailureThrottle}); a client over the limit is answered 429
 * without the token being checked, so guessing gets no faster by sending more. A refusal is logged
 * with the method, path and address, never with what the request carried.
 */
export function bearerAuth(guard: TokenGuard): MiddlewareHandler {
  const { token, throttle, proxies, log } = guard;
  const now = guard.now ?? Date.now;
  return async (c, next) => {
    if (token === null || !isProtected(c.req.path, guard.metricsPublic)) return next();
    const from = clientAddressOf(c, proxies);
    const waitMs = throttle.waitMs(from, now());
    if (waitMs > 0) return throttled(c, waitMs);
    const given = carried(c.req.header('authorization'), getCookie(c, TOKEN_COOKIE));
    if (given !== null && tokenMatches(given, token)) return next();
    // A request with no token at all is no guess (a page not signed in yet): only wrong ones count.
    if (given !== null) throttle.fail(from, now());
    log.warn('refused a request without a valid token', { method: c.req.method, path: c.req.path, from });
    c.header('WWW-Authenticate', 'Bearer realm="tierflow"');
    return c.json({ error: { code: 'unauthorized', message: 'a valid bearer token is required (Authorization: Bearer <TIERFLOW_API_TOKEN>)' } }, 401);
  };
}

/**
 * `POST /api/session` with `{ "token": … }`: the dashboard's sign-in. The token, if right, goes
 * into an HttpOnly, SameSite=Strict cookie, which a page's scripts cannot read and other sites
 * cannot make the browser send. A wrong one is logged (with the address, never what was sent)
 * and counted against the client's address, as the API's are.
 */
export function signIn(guard: TokenGuard): MiddlewareHandler {
  const { token, throttle, proxies, log } = guard;
  const now = guard.now ?? Date.now;
  return async (c) => {
    if (token === null) return c.json({ signed_in: true, token_required: false });
    const from = clientAddressOf(c, proxies);
    const waitMs = throttle.waitMs(from, now());
    if (waitMs > 0) return throttled(c, waitMs);
    const body: unknown = await c.req.json().catch(() => null);
    const given = typeof body === 'object' && body !== null && 'token' in body && typeof body.token === 'string' ? body.token : '';
    if (!tokenMatches(given, token)) {
      throttle.fail(from, now());
      log.warn('refused a sign-in with a wrong token', { from });
      return c.json({ error: { code: 'unauthorized', message: 'wrong token' } }, 401);
    }
    // Secure where the browser reached us over HTTPS: this server's own, or a trusted proxy's in front.
    setCookie(c, TOKEN_COOKIE, token, { httpOnly: true, sameSite: 'Strict', path: '/', secure: requestOrigin(c, proxies).startsWith('https:') });
    return c.json({ signed_in: true, token_required: true });
  };
}
