/**
 * Redis URLs carry passwords, so nothing here ever quotes one back: a URL is shown only as
 * {@link redactUrl} draws it, and a problem with one is told in words alone.
 */

// Schemes worth naming in a message; any other "scheme" may be the start of a password.
const NAMED_SCHEMES = new Set(['redis:', 'rediss:', 'http:', 'https:', 'tcp:', 'unix:']);

function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/**
 * An `@` past the host means the userinfo ended early: a password with an unencoded `/`, `?` or
 * `#` in it, whose pieces now stand in the host, the path or the query.
 */
function cutShort(parsed: URL): boolean {
  return `${parsed.pathname}${parsed.search}${parsed.hash}`.includes('@');
}

/**
 * The URL for logs and messages: scheme, user, host, port and database, the password replaced by
 * `***`. Whatever the URL's shape, nothing of its password shows: a URL that does not parse (or
 * has an odd scheme) shows as `***`; one whose password was cut short by an unencoded `/`, `?` or
 * `#` as its scheme alone; a user without a password (often a password written where the user
 * goes) as `***`; a query or fragment (ioredis reads options, a password among them, from the
 * query) as `?***` / `#***`.
 */
export function redactUrl(url: string): string {
  const parsed = parse(url);
  if (!parsed || !NAMED_SCHEMES.has(parsed.protocol)) return '***';
  if (!parsed.host || cutShort(parsed)) return `${parsed.protocol}//***`;
  const user = parsed.password ? `${parsed.username}:***@` : parsed.username ? '***@' : '';
  const path = /^\/?\d*$/.test(parsed.pathname) ? parsed.pathname : '/***';
  return `${parsed.protocol}//${user}${parsed.host}${path}${parsed.search ? '?***' : ''}${parsed.hash ? '#***' : ''}`;
}

/**
 * Why `url` cannot be used to reach Redis, in words that quote nothing of it; null when it can.
 * ioredis reads a URL as WHATWG `URL` does, so a URL that passes connects where it says.
 */
export function redisUrlProblem(url: string): string | null {
  const parsed = parse(url);
  if (!parsed) return 'is not a URL: write redis://[user:password@]host[:port][/db], with / # ? @ in the password percent-encoded (%2F %23 %3F %40)';
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') return 'must start with redis:// or rediss://';
  if (cutShort(parsed)) return 'has an @ past the host: percent-encode / # ? in the password (%2F %23 %3F)';
  if (!parsed.hostname) return 'names no host';
  if (!/^\/?\d*$/.test(parsed.pathname)) return 'must name its database by number (redis://host:6379/0)';
  return null;
}

/** `rediss://`: TLS. */
export function isTlsUrl(redisUrl: string): boolean {
  return /^rediss:\/\//i.test(redisUrl);
}
