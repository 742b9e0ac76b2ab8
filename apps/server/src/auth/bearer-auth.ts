import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { TierLogger } from '@tierflow/runtime';

/** The cookie the dashboard keeps the token in, so a browser's page loads, event streams and Bull Board carry it. */
export const TOKEN_COOKIE = 'tierflow_token';

/** Where the dashboard signs in: open, since it is where the token is given. */
export const SESSION_PATH = '/api/session';

/**
 * What needs the token: the API, the A2A endpoint and the raw queues. Pages, assets, the agent
 * card, the API description and the sign-in do not: they hold nothing of any run.
 */
export function isProtected(path: string): boolean {
  if (path === SESSION_PATH) return false;
  return path.startsWith('/api/') || path === '/a2a' || path.startsWith('/a2a/') || path === '/queues' || path.startsWith('/queues/');
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

/**
 * Lets a protected request in only with the token. A refusal answers 401 and is logged with the
 * method, path and address, never with what the request carried.
 */
export function bearerAuth(token: string | null, log: TierLogger): MiddlewareHandler {
  return async (c, next) => {
    if (token === null || !isProtected(c.req.path)) return next();
    const given = carried(c.req.header('authorization'), getCookie(c, TOKEN_COOKIE));
    if (given !== null && tokenMatches(given, token)) return next();
    log.warn('refused a request without a valid token', { method: c.req.method, path: c.req.path, from: c.req.header('x-forwarded-for') ?? remoteAddress(c.env) });
    c.header('WWW-Authenticate', 'Bearer realm="tierflow"');
    return c.json({ error: { code: 'unauthorized', message: 'a valid bearer token is required (Authorization: Bearer <TIERFLOW_API_TOKEN>)' } }, 401);
  };
}

/**
 * `POST /api/session` with `{ "token": … }`: the dashboard's sign-in. The token, if right, goes
 * into an HttpOnly, SameSite=Strict cookie, which a page's scripts cannot read and other sites
 * cannot make the browser send.
 */
export function signIn(token: string | null): MiddlewareHandler {
  return async (c) => {
    if (token === null) return c.json({ signed_in: true, token_required: false });
    const body: unknown = await c.req.json().catch(() => null);
    const given = typeof body === 'object' && body !== null && 'token' in body && typeof body.token === 'string' ? body.token : '';
    if (!tokenMatches(given, token)) return c.json({ error: { code: 'unauthorized', message: 'wrong token' } }, 401);
    setCookie(c, TOKEN_COOKIE, token, { httpOnly: true, sameSite: 'Strict', path: '/', secure: new URL(c.req.url).protocol === 'https:' });
    return c.json({ signed_in: true, token_required: true });
  };
}

function remoteAddress(env: unknown): string {
  const incoming = (env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? 'unknown';
}
