import { readTierflowVars, ConfigError } from '@tierflow/runtime';
import { z } from 'zod';

/** What `tierflow serve` listens on and how it lets requests in. */
export interface ServerOptions {
  readonly host: string;
  readonly port: number;
  /** The bearer token every API request must carry; null: none is asked (loopback only). */
  readonly token: string | null;
  /** Where the dashboard links a run's trace (`JAEGER_URL`). */
  readonly jaegerUrl: string;
}

export interface ServerOptionsInput {
  readonly host?: string;
  readonly port?: number;
  readonly token?: string | null;
  readonly jaegerUrl?: string;
}

export const SERVER_DEFAULTS = { host: '127.0.0.1', port: 8080, jaegerUrl: 'http://localhost:16686' } as const;

const inputSchema = z.object({
  host: z.string().min(1).optional(),
  port: z.int().min(0).max(65_535).optional(),
  token: z.string().min(16, { message: 'must be at least 16 characters' }).nullable().optional(),
  jaegerUrl: z.url().optional(),
});

/** Hosts that only this machine reaches: a server on one of them may go without a token. */
const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || host.startsWith('127.');
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
  return { host, port: parsed.data.port ?? SERVER_DEFAULTS.port, token, jaegerUrl: parsed.data.jaegerUrl ?? SERVER_DEFAULTS.jaegerUrl };
}

/** The options from the environment (TIERFLOW_API_TOKEN, JAEGER_URL), with the command's flags over them. */
export function serverOptionsFromEnv(env: NodeJS.ProcessEnv, flags: { readonly host?: string; readonly port?: number } = {}): ServerOptions {
  const vars = readTierflowVars(env, ['TIERFLOW_API_TOKEN', 'JAEGER_URL']);
  return resolveServerOptions({
    ...flags,
    ...(vars.TIERFLOW_API_TOKEN ? { token: vars.TIERFLOW_API_TOKEN } : {}),
    ...(vars.JAEGER_URL ? { jaegerUrl: vars.JAEGER_URL } : {}),
  });
}
