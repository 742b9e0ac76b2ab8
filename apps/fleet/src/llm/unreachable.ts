import { CONNECT_TIMEOUT_CODE } from './keep-alive-fetch.js';

/** How many times a call tries an endpoint it cannot reach before it answers `model_unreachable`. */
export const UNREACHABLE_TRIES = 3;

/** The wait before the next try of an endpoint not reached `tries` times: 1 s, then 2 s. */
export function unreachableDelayMs(tries: number): number {
  return 1_000 * 2 ** Math.max(0, tries - 1);
}

// The system's, undici's and keepAliveFetch's codes for a connection that was never made, so no request went out.
const CAUSES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'unknown host',
  EAI_AGAIN: 'unknown host',
  EAI_NONAME: 'unknown host',
  EHOSTUNREACH: 'host unreachable',
  EHOSTDOWN: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENETDOWN: 'network unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  [CONNECT_TIMEOUT_CODE]: 'connection timed out',
  EPROTO: 'TLS failure',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'TLS failure: untrusted certificate',
  SELF_SIGNED_CERT_IN_CHAIN: 'TLS failure: untrusted certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS failure: untrusted certificate',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'TLS failure: untrusted certificate',
  CERT_HAS_EXPIRED: 'TLS failure: certificate expired',
  CERT_NOT_YET_VALID: 'TLS failure: certificate not yet valid',
};

function causeOfCode(code: unknown): string | null {
  if (typeof code !== 'string') return null;
  if (CAUSES[code] !== undefined) return CAUSES[code];
  // OpenSSL's handshake errors (a wrong version number: TLS spoken to a plain port) and Node's TLS checks.
  if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')) return 'TLS failure';
  return null;
}

/**
 * Why a request never reached its endpoint (`connection refused`, `unknown host`, `TLS failure`,
 * …), or null when it may have been sent (a connection reset or closed mid-request, a timeout
 * after connecting, an abort). Reads the codes down the error's causes: the client wraps fetch's
 * error, which wraps the socket's (an AggregateError when every address of a host refused). Pure.
 */
export function unreachableCause(error: unknown, depth = 0): string | null {
  if (depth > 6 || typeof error !== 'object' || error === null) return null;
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
  const own = causeOfCode(code);
  if (own !== null) return own;
  if (Array.isArray(errors)) {
    for (const inner of errors) {
      const found = unreachableCause(inner, depth + 1);
      if (found !== null) return found;
    }
  }
  return unreachableCause(cause, depth + 1);
}

/** An endpoint as messages name it: scheme, host, port and path, without credentials, query or fragment. Pure. */
export function endpointName(baseURL: string): string {
  const url = parsedUrl(baseURL);
  return url === null ? 'an endpoint whose URL does not parse' : nameOf(url);
}

/** An endpoint's base URL as model limits are kept under it: its {@link endpointName}; null for what is no http or https URL. Pure. */
export function endpointKey(text: string): string | null {
  const url = parsedUrl(text);
  return url !== null && (url.protocol === 'http:' || url.protocol === 'https:') ? nameOf(url) : null;
}

function parsedUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

function nameOf(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}
