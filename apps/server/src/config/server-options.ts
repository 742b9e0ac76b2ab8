import { isIP } from 'node:net';
import { readTierflowVars } from '@tierflow/runtime/admin';
import { ConfigError } from '@tierflow/runtime';
import { DEFAULT_MAX_DELEGATION_DEPTH, MAX_DELEGATION_DEPTH } from '@tierflow/protocol';
import { z } from 'zod';

/** What `tierflow serve` listens on and how it lets requests in. */
export interface ServerOptions {
  readonly host: string;
  readonly port: number;
  /** The bearer token every API request must carry; null: none is asked (loopback only). */
  readonly token: string | null;
  /** Where the dashboard links a run's trace (`JAEGER_URL`). */
  readonly jaegerUrl: string;
  /**
   * Host names a request's Host (and a page's Origin) may name besides the address served: the
   * name a proxy in front is reached by, say (`TIERFLOW_SERVE_ALLOWED_HOSTS`). Lower case.
   */
  readonly allowedHosts: readonly string[];
  /**
   * Addresses (`10.0.0.5`) or ranges (`10.0.0.0/8`) of proxies in front, whose X-Forwarded-For,
   * -Proto and -Host are believed (`TIERFLOW_SERVE_TRUSTED_PROXIES`); from anyone else they are ignored.
   */
  readonly trustedProxies: readonly string[];
  /** Whether Bull Board may change the queues (retry, add, clean, pause…); read-only when false (`TIERFLOW_SERVE_QUEUE_ACTIONS`). */
  readonly queueActions: boolean;
  /** Whether /metrics answers without the token (`TIERFLOW_SERVE_METRICS_PUBLIC`); it asks for it otherwise, whenever there is one. */
  readonly metricsPublic: boolean;
  /**
   * How many deployments work may have crossed when it reaches the A2A endpoint
   * (`TIERFLOW_SERVE_A2A_MAX_DEPTH`, docs/protocol.md#delegation-across-deployments): 1 by default,
   * so a remote Tierflow may not hand the work further; 0 takes work only from clients that are not Tierflows.
   */
  readonly a2aMaxDepth: number;
}

export interface ServerOptionsInput {
  readonly host?: string;
  readonly port?: number;
  readonly token?: string | null;
  readonly jaegerUrl?: string;
  readonly allowedHosts?: readonly string[];
  readonly trustedProxies?: readonly string[];
  readonly queueActions?: boolean;
  readonly metricsPublic?: boolean;
  readonly a2aMaxDepth?: number;
}

export const SERVER_DEFAULTS = {
  host: '127.0.0.1',
  port: 8080,
  jaegerUrl: 'http://localhost:16686',
  queueActions: false,
  metricsPublic: false,
  a2aMaxDepth: DEFAULT_MAX_DELEGATION_DEPTH,
} as const;

/** A DNS name (letters, digits, `-`, dots between labels) or an IP address, as a Host header names one. */
const HOST_NAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

const hostNameSchema = z
  .string()
  .transform((name) =>
    name
      .trim()
      .toLowerCase()
      .replace(/^\[(.*)\]$/, '$1'),
  )
  .refine((name) => HOST_NAME.test(name) || isIP(name) !== 0, { message: 'must be a host name or an IP address, without a port' });

/** An IP address, or a range as `address/prefix length`. */
export function isAddressOrRange(entry: string): boolean {
  const [address = '', bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

const inputSchema = z.object({
  host: z.string().min(1).optional(),
  port: z.int().min(0).max(65_535).optional(),
  token: z.string().min(16, { message: 'must be at least 16 characters' }).nullable().optional(),
  jaegerUrl: z.url().optional(),
  allowedHosts: z.array(hostNameSchema).optional(),
  trustedProxies: z.array(z.string().trim().refine(isAddressOrRange, { message: 'must be an IP address or a range such as 10.0.0.0/8' })).optional(),
  queueActions: z.boolean().optional(),
  metricsPublic: z.boolean().optional(),
  a2aMaxDepth: z.int().min(0).max(MAX_DELEGATION_DEPTH).optional(),
});

/**
 * Whether a host name or address reaches only this machine: `localhost`, 127.0.0.0/8 and ::1,
 * written as addresses. A name that merely starts with `127.` (`127.evil.example`) is a name
 * like any other, which anyone's DNS may point anywhere.
 */
export function isLoopback(host: string): boolean {
  const bare = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (bare === 'localhost') return true;
  switch (isIP(bare)) {
    case 4:
      return bare.startsWith('127.');
    case 6:
      return bare === '::1' || bare === '0:0:0:0:0:0:0:1';
    default:
      return false;
  }
}

/**
 * The server's options, defaults filled in. A server that listens beyond loopback must have a
 * token: anyone who can reach it could otherwise enqueue, cancel and answer runs. Pure.
 *
 * @throws ConfigError (code `invalid_config`) naming every bad option.
 */
export function resolveServerOptions(input: ServerOptionsInput = {}): ServerOptions {
  const parsed = inputSchema.safeParse(input);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.') || 'options'}: ${issue.message}`));
  const host = parsed.data.host ?? SERVER_DEFAULTS.host;
  const token = parsed.data.token ?? null;
  if (token === null && !isLoopback(host)) {
    throw new ConfigError([`host ${host}: a server that listens beyond loopback needs TIERFLOW_API_TOKEN, the bearer token every request must carry`]);
  }
  return {
    host,
    port: parsed.data.port ?? SERVER_DEFAULTS.port,
    token,
    jaegerUrl: parsed.data.jaegerUrl ?? SERVER_DEFAULTS.jaegerUrl,
    allowedHosts: [...new Set(parsed.data.allowedHosts ?? [])],
    trustedProxies: parsed.data.trustedProxies ?? [],
    queueActions: parsed.data.queueActions ?? SERVER_DEFAULTS.queueActions,
    metricsPublic: parsed.data.metricsPublic ?? SERVER_DEFAULTS.metricsPublic,
    a2aMaxDepth: parsed.data.a2aMaxDepth ?? SERVER_DEFAULTS.a2aMaxDepth,
  };
}

/** A comma-separated list's entries, blanks dropped. */
const listOf = (text: string | undefined): string[] | undefined =>
  text === undefined
    ? undefined
    : text
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== '');

/**
 * The options from the environment (TIERFLOW_API_TOKEN, JAEGER_URL, TIERFLOW_SERVE_ALLOWED_HOSTS,
 * TIERFLOW_SERVE_TRUSTED_PROXIES, TIERFLOW_SERVE_QUEUE_ACTIONS, TIERFLOW_SERVE_METRICS_PUBLIC,
 * TIERFLOW_SERVE_A2A_MAX_DEPTH), with the command's flags over them.
 */
export function serverOptionsFromEnv(env: NodeJS.ProcessEnv, flags: { readonly host?: string; readonly port?: number } = {}): ServerOptions {
  const vars = readTierflowVars(env, [
    'TIERFLOW_API_TOKEN',
    'JAEGER_URL',
    'TIERFLOW_SERVE_ALLOWED_HOSTS',
    'TIERFLOW_SERVE_TRUSTED_PROXIES',
    'TIERFLOW_SERVE_QUEUE_ACTIONS',
    'TIERFLOW_SERVE_METRICS_PUBLIC',
    'TIERFLOW_SERVE_A2A_MAX_DEPTH',
  ]);
  const allowedHosts = listOf(vars.TIERFLOW_SERVE_ALLOWED_HOSTS);
  const trustedProxies = listOf(vars.TIERFLOW_SERVE_TRUSTED_PROXIES);
  try {
    return resolveServerOptions({
      ...flags,
      ...(vars.TIERFLOW_API_TOKEN ? { token: vars.TIERFLOW_API_TOKEN } : {}),
      ...(vars.JAEGER_URL ? { jaegerUrl: vars.JAEGER_URL } : {}),
      ...(allowedHosts ? { allowedHosts } : {}),
      ...(trustedProxies ? { trustedProxies } : {}),
      queueActions: vars.TIERFLOW_SERVE_QUEUE_ACTIONS,
      metricsPublic: vars.TIERFLOW_SERVE_METRICS_PUBLIC,
      ...(vars.TIERFLOW_SERVE_A2A_MAX_DEPTH === undefined ? {} : { a2aMaxDepth: vars.TIERFLOW_SERVE_A2A_MAX_DEPTH }),
    });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // A list read from a variable is named by that variable, and its entry by number.
    const named = error.problems.map((problem) =>
      problem.replace(/^allowedHosts\.(\d+)/, 'TIERFLOW_SERVE_ALLOWED_HOSTS entry $1').replace(/^trustedProxies\.(\d+)/, 'TIERFLOW_SERVE_TRUSTED_PROXIES entry $1'),
    );
    throw new ConfigError(named);
  }
}
