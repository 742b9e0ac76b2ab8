import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { TierflowError } from '@tierflow/protocol';
import { Redis } from 'ioredis';
import type { RedisClient } from '@tierflow/beads';
import { coalesceWrites } from './coalesce-writes.js';
import { connectCluster, type RedisTarget } from './cluster.js';
import { isTlsUrl, redactUrl, redisUrlProblem } from './redis-url.js';
import { outageReports } from './outage-reports.js';
import { awaitReachable } from './reach.js';
import { readTierflowVars } from '../config/tierflow-env.js';

/** The variables naming PEM files for TLS to Redis (`rediss://`): a private CA, and a client certificate for mutual TLS. */
export const REDIS_TLS_ENV = { ca: 'TIERFLOW_REDIS_TLS_CA', cert: 'TIERFLOW_REDIS_TLS_CERT', key: 'TIERFLOW_REDIS_TLS_KEY' } as const;

/**
 * An ioredis client as BullMQ needs it: commands wait through reconnects instead of failing. To a
 * Redis Cluster when `target` names seed nodes (see connectCluster), else to the URL's server.
 * Its socket sends each burst of commands in one write ({@link coalesceWrites}).
 * While Redis is unreachable ioredis retries on its own, for ever; we say so once an outage starts,
 * then again at a falling rate (after 10 s, 30 s, 1 min, 2 min, 5 min, then every 5 min: outage-reports.ts), rather than on every retry. A `rediss://` URL gets the TLS files named in the environment (see
 * {@link redisTlsFromEnv}); every connection is made here, so workers and clients alike use them.
 *
 * @throws TierflowError (code `invalid_config`) for a URL ioredis would misread, before it can:
 *   a password cut short by an unencoded `/` or `#` would otherwise become a host, and be logged.
 */
export function connect(redisUrl: string, warn?: (message: string) => void, tls?: ConnectionOptions): Redis;
export function connect(target: string | RedisTarget, warn?: (message: string) => void, tls?: ConnectionOptions): RedisClient;
export function connect(
  target: string | RedisTarget,
  warn: (message: string) => void = (message) => process.stderr.write(`${message}\n`),
  tls: ConnectionOptions | undefined = isTlsUrl(typeof target === 'string' ? target : target.redisUrl) ? redisTlsFromEnv() : undefined,
): RedisClient {
  const { redisUrl, redisCluster } = typeof target === 'string' ? { redisUrl: target, redisCluster: null } : target;
  const problem = redisUrlProblem(redisUrl);
  if (problem) throw TierflowError.permanent(`the Redis URL ${redactUrl(redisUrl)} ${problem}`, { code: 'invalid_config' });
  const client: RedisClient = redisCluster ? connectCluster(redisUrl, redisCluster, tls) : new Redis(redisUrl, { maxRetriesPerRequest: null, ...(tls ? { tls } : {}) });
  const where = redisWhere(target);
  const reports = outageReports(warn, where, isTlsUrl(redisUrl), Date.now);
  // Registered first, so it runs before BullMQ's listener, which prints an error it cannot hand on whole.
  client.on('error', (error: Error) => {
    hideCommandSecrets(error);
    reports.failed(error);
  });
  client.on('ready', () => reports.recovered());
  // A Cluster's sockets are its nodes', made as it learns of them: each is coalesced as it connects.
  const coalesce = (server: Redis): void => void server.on('connect', () => coalesceWrites(server.stream));
  if (client instanceof Redis) coalesce(client);
  else client.on('+node', coalesce);
  return client;
}

/** Where a connection goes, for messages: the URL as {@link redactUrl} shows it, or a Cluster's seed nodes. */
export function redisWhere(target: string | RedisTarget): string {
  const { redisUrl, redisCluster } = typeof target === 'string' ? { redisUrl: target, redisCluster: null } : target;
  return redisCluster ? `cluster ${redisCluster.join(',')}` : redactUrl(redisUrl);
}

/**
 * A client that has answered: {@link connect}, then a PING within `connectTimeoutMs` (see
 * {@link awaitReachable}). For commands, which should fail in seconds when Redis cannot be used;
 * workers use {@link connect} and wait. The connection says nothing of an outage until it has
 * answered once: the error thrown says it.
 *
 * @throws RedisUnreachableError (code `redis_unreachable`) naming the URL, password hidden, and why.
 */
export async function connectReachable(
  target: RedisTarget & { readonly connectTimeoutMs: number },
  warn: (message: string) => void = (message) => process.stderr.write(`${message}\n`),
): Promise<RedisClient> {
  let answered = false;
  const client = connect(target, (message) => {
    if (answered) warn(message);
  });
  try {
    await awaitReachable(client, { where: redisWhere(target), tls: isTlsUrl(target.redisUrl), timeoutMs: target.connectTimeoutMs });
  } catch (error) {
    client.disconnect();
    throw error;
  }
  answered = true;
  return client;
}

/**
 * TLS options from TIERFLOW_REDIS_TLS_CA (a CA to trust instead of the system's), and
 * TIERFLOW_REDIS_TLS_CERT with TIERFLOW_REDIS_TLS_KEY (a client certificate, for a server that
 * asks for one): paths of PEM files, read now. `undefined` when none is set, so `rediss://`
 * alone trusts the system's CAs. The server's certificate must name the host in the URL.
 *
 * @throws TierflowError (code `invalid_config`) for a certificate without its key (or the
 *   reverse), or a file that cannot be read.
 */
export function redisTlsFromEnv(env: NodeJS.ProcessEnv = process.env): ConnectionOptions | undefined {
  const files = readTierflowVars(env, [REDIS_TLS_ENV.ca, REDIS_TLS_ENV.cert, REDIS_TLS_ENV.key]);
  const [ca, cert, key] = [files[REDIS_TLS_ENV.ca], files[REDIS_TLS_ENV.cert], files[REDIS_TLS_ENV.key]];
  if (!ca && !cert && !key) return undefined;
  if (Boolean(cert) !== Boolean(key)) {
    throw TierflowError.permanent(`${REDIS_TLS_ENV.cert} and ${REDIS_TLS_ENV.key} go together: set both or neither`, { code: 'invalid_config' });
  }
  return {
    ...(ca ? { ca: pem(REDIS_TLS_ENV.ca, ca) } : {}),
    ...(cert && key ? { cert: pem(REDIS_TLS_ENV.cert, cert), key: pem(REDIS_TLS_ENV.key, key) } : {}),
  };
}

function pem(name: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw TierflowError.permanent(`${name}=${path}: ${(error as Error).message}`, { code: 'invalid_config', cause: error });
  }
}

// Commands whose arguments hold a password: ioredis sends AUTH (or HELLO … AUTH) as it connects.
const SECRET_COMMANDS = new Set(['auth', 'hello', 'migrate', 'acl', 'config']);

/**
 * ioredis puts the command that failed on its error (`command: { name: 'auth', args: [user,
 * password] }`), and a logger that prints errors whole (BullMQ's, for one) would print the
 * password. Such a command's arguments are replaced, in place, before anyone else sees the error.
 */
export function hideCommandSecrets(error: unknown): void {
  const command = (error as { command?: { name?: unknown; args?: unknown } } | null)?.command;
  if (command && typeof command.name === 'string' && SECRET_COMMANDS.has(command.name.toLowerCase()) && Array.isArray(command.args)) {
    command.args = command.args.map(() => '***');
  }
}
