import { TLSSocket } from 'node:tls';
import { TierflowError } from '@tierflow/protocol';
import type { RedisClient } from '@tierflow/beads';
import { Redis } from 'ioredis';

/**
 * Redis could not be used: the URL it was given (as `redactUrl` shows it) and why, in words. A
 * client command prints its message as its one line and exits 3.
 */
export class RedisUnreachableError extends TierflowError {
  override readonly name = 'RedisUnreachableError';
  constructor(
    readonly where: string,
    readonly reason: string,
    cause?: unknown,
  ) {
    super(`cannot reach Redis at ${where}: ${reason}`, { code: 'redis_unreachable', retryable: true, ...(cause === undefined ? {} : { cause }) });
  }
}

const NODE_CAUSES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused (is redis-server running, on that port?)',
  ENOTFOUND: 'unknown host',
  EAI_AGAIN: 'unknown host (the name lookup failed; try again?)',
  ETIMEDOUT: 'timed out connecting',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'connection reset by the server',
};

/**
 * Why a connection failed, in words, from what ioredis or Node said: the error's code (a socket's,
 * or the one a Redis reply starts with), else its message. `tls` says whether the URL asked for
 * TLS, to tell a mismatch from a plain failure. Never quotes the message of an error it does not
 * know: ioredis may put the AUTH command on it.
 */
export function redisFailureReason(error: unknown, tls: boolean): string {
  // A Cluster's "Failed to refresh slots cache" carries the last node's error, the one that tells.
  const lastNodeError = (error as { lastNodeError?: unknown } | null)?.lastNodeError;
  if (lastNodeError instanceof Error) return redisFailureReason(lastNodeError, tls);
  const code = typeof (error as { code?: unknown } | null)?.code === 'string' ? (error as { code: string }).code : '';
  const message = error instanceof Error ? error.message : '';
  const reply = /^([A-Z]+)\b/.exec(message)?.[1] ?? '';
  if (reply === 'WRONGPASS') return 'authentication failed: wrong user or password (WRONGPASS)';
  if (reply === 'NOAUTH') return 'the server needs a password, and the URL gives none (NOAUTH)';
  if (reply === 'NOPERM') return 'the user may not run the commands Tierflow needs (NOPERM)';
  if (/before secure TLS connection was established/.test(message)) return tlsMismatch(tls);
  if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_') || /CERT|SIGNATURE|ISSUER/.test(code)) return `TLS failed (${code})`;
  if (code === 'EPROTO') return tlsMismatch(tls);
  if (code === 'ECONNRESET' && !tls) return `${NODE_CAUSES[code]} (a TLS port reached with redis://? use rediss://)`;
  if (NODE_CAUSES[code]) return NODE_CAUSES[code];
  if (/Connection is closed/.test(message)) return tls ? tlsMismatch(tls) : 'the server closed the connection (a TLS port reached with redis://? use rediss://)';
  return code ? `connection failed (${code})` : 'connection failed';
}

function tlsMismatch(tls: boolean): string {
  return tls ? 'TLS handshake failed: does the server speak TLS on that port? (a plain port wants redis://)' : 'TLS mismatch: the server speaks TLS on that port (use rediss://)';
}

/** Why nothing answered within `ms`, knowing what the socket got to. */
function silenceReason(client: RedisClient, ms: number, tls: boolean): string {
  const seconds = `${ms / 1000} s`;
  const stream = client instanceof Redis ? (client as Redis & { stream?: unknown }).stream : undefined;
  // Reached over TCP but the handshake never ended: a plain server waits for a line the ClientHello never ends.
  if (tls && stream instanceof TLSSocket && !stream.connecting && !stream.destroyed) {
    return `no TLS handshake within ${seconds}: the server does not speak TLS on that port (a plain port wants redis://)`;
  }
  return `no answer within ${seconds}`;
}

/**
 * Resolves once `client` answers a PING; rejects with a {@link RedisUnreachableError} at the first
 * connection error (refused, unknown host, TLS, authentication) or after `timeoutMs` of silence,
 * so a command fails in seconds rather than waiting through ioredis's reconnects for ever. The
 * client is left as it is: whoever made it closes it.
 */
export async function awaitReachable(client: RedisClient, options: { readonly where: string; readonly tls: boolean; readonly timeoutMs: number }): Promise<void> {
  const { where, tls, timeoutMs } = options;
  let onError: ((error: Error) => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  const failed = new Promise<never>((_, reject) => {
    onError = (error) => reject(new RedisUnreachableError(where, redisFailureReason(error, tls)));
    timer = setTimeout(() => reject(new RedisUnreachableError(where, silenceReason(client, timeoutMs, tls))), timeoutMs);
    client.on('error', onError);
  });
  // The PING's own rejection (a refused AUTH fails it) is the same failure the error event tells.
  const ping = client.ping().then(
    () => undefined,
    (error: unknown) => Promise.reject(new RedisUnreachableError(where, redisFailureReason(error, tls))),
  );
  try {
    await Promise.race([ping, failed]);
  } finally {
    clearTimeout(timer);
    client.off('error', onError!);
    ping.catch(() => undefined);
  }
}
