import type { MiddlewareHandler } from 'hono';
import { hostnameOf } from './host-check.js';

/** The header a script that is not a browser page may send to say the request is meant: a page of another site cannot send it without asking first (CORS), and this server never says yes. */
export const REQUEST_MARK_HEADER = 'x-tierflow-request';

/** What the check reads of a request: its method and headers. */
export interface RequestFacts {
  readonly method: string;
  /** The Host header (already checked to name this server). */
  readonly host: string | undefined;
  readonly origin: string | undefined;
  readonly secFetchSite: string | undefined;
  readonly contentType: string | undefined;
  /** Whether it carries a body (Content-Length above 0, or Transfer-Encoding). */
  readonly hasBody: boolean;
  /** Whether it carries {@link REQUEST_MARK_HEADER}. */
  readonly marked: boolean;
}

export interface Refusal {
  readonly status: 403 | 415;
  readonly code: 'forbidden' | 'unsupported_media_type';
  readonly message: string;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** `application/json`, or a `+json` type, with or without parameters. */
export function isJsonType(contentType: string | undefined): boolean {
  return /^\s*application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i.test(contentType ?? '');
}

/**
 * Why a state-changing request (any method but GET, HEAD and OPTIONS) may come from a page of
 * another site, or null when it cannot:
 *
 * - a browser says where a request comes from: `Sec-Fetch-Site` must be `same-origin`, and an
 *   `Origin` must be this server's (the host the request names, or a configured host name);
 * - a body must be JSON (`Content-Type: application/json`): a form or a `text/plain` fetch, which
 *   a page may send anywhere unasked, is refused;
 * - a request with no Origin (a script, curl, an SDK, or an old browser) must be JSON or carry
 *   `X-Tierflow-Request`, which no page of another site can send without the server's leave.
 *
 * Pure.
 */
export function crossSiteRefusal(facts: RequestFacts, allowedHosts: ReadonlySet<string>): Refusal | null {
  if (SAFE_METHODS.has(facts.method.toUpperCase())) return null;
  const forbidden = (message: string): Refusal => ({ status: 403, code: 'forbidden', message });
  if (facts.secFetchSite !== undefined && facts.secFetchSite.toLowerCase() !== 'same-origin') {
    return forbidden(`a ${facts.secFetchSite} request may not change anything here (Sec-Fetch-Site)`);
  }
  if (facts.origin !== undefined && !sameServer(facts.origin, facts.host, allowedHosts)) {
    return forbidden(`a request from ${facts.origin} may not change anything here (Origin)`);
  }
  if (facts.hasBody && !isJsonType(facts.contentType)) {
    return { status: 415, code: 'unsupported_media_type', message: `a body must be JSON (Content-Type: application/json), not ${facts.contentType ?? 'untyped'}` };
  }
  if (facts.origin === undefined && !isJsonType(facts.contentType) && !facts.marked) {
    return forbidden('a request without a JSON body must carry the header X-Tierflow-Request: 1 (or Content-Type: application/json)');
  }
  return null;
}

/** Whether an Origin is this server as the request reached it, or a configured host name. */
function sameServer(origin: string, host: string | undefined, allowedHosts: ReadonlySet<string>): boolean {
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    // `null` (a sandboxed frame, a redirect across sites, a file) is no one's origin.
    return false;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
  if (host !== undefined && parsed.host === host.trim().toLowerCase()) return true;
  const name = hostnameOf(parsed.host);
  return name !== null && allowedHosts.has(name);
}

/** Whether a request's headers say it has a body. */
function hasBody(contentLength: string | undefined, transferEncoding: string | undefined): boolean {
  return transferEncoding !== undefined || (contentLength !== undefined && contentLength.trim() !== '0');
}

/** Refuses the requests {@link crossSiteRefusal} finds may come from another site's page. */
export function crossSiteCheck(allowedHosts: readonly string[]): MiddlewareHandler {
  const allowed = new Set(allowedHosts);
  return async (c, next) => {
    const refusal = crossSiteRefusal(
      {
        method: c.req.method,
        host: c.req.header('host'),
        origin: c.req.header('origin'),
        secFetchSite: c.req.header('sec-fetch-site'),
        contentType: c.req.header('content-type'),
        hasBody: hasBody(c.req.header('content-length'), c.req.header('transfer-encoding')),
        marked: c.req.header(REQUEST_MARK_HEADER) !== undefined,
      },
      allowed,
    );
    if (refusal === null) return next();
    return c.json({ error: { code: refusal.code, message: refusal.message } }, refusal.status);
  };
}
