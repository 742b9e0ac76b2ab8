import { isTierflowError, TierflowError } from '@tierflow/protocol';
import type { z } from 'zod';
import { redactUrl } from '../redis/redis-url.js';

/** Configuration a process cannot run with: every problem found, one line each. */
export class ConfigError extends TierflowError {
  override readonly name = 'ConfigError';

  constructor(
    /** `TIERFLOW_LOCK_DURATION_MS="0": must be a whole number of milliseconds, …`, one per bad setting. */
    readonly problems: readonly string[],
  ) {
    super(`invalid configuration: ${problems.join('; ')}`, { code: 'invalid_config', retryable: false });
  }
}

/**
 * What to print for an error that stops a process at start: each configuration problem on a line
 * of its own (a {@link ConfigError}'s problems, or the message of another `invalid_config` error);
 * null for any other error.
 */
export function configProblems(error: unknown): readonly string[] | null {
  if (error instanceof ConfigError) return error.problems;
  return isTierflowError(error) && error.code === 'invalid_config' ? [error.message] : null;
}

/** One variable's problem, from a check across variables. */
export interface EnvProblem {
  readonly name: string;
  readonly message: string;
}

/** Variables whose values are secrets, shown nowhere. */
const SECRET_NAME = /PASSWORD|SECRET|SIGNING_KEY|API_KEY|TOKEN/;

/** Whether a variable holds a secret, whose value is never shown. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** How a value is quoted in a message: URLs redacted, secrets not at all, long values cut. */
export function shownValue(name: string, value: string): string {
  if (isSecretName(name)) return '(not shown)';
  const text = /URL/.test(name) ? redactUrl(value) : value;
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}

/**
 * Reads the variables `schema` defines from `env`; empty ones count as unset, others are ignored.
 * `across` checks relations between variables once each is valid on its own; it gets which ones
 * were set, to blame the one the operator wrote rather than a default.
 *
 * @throws ConfigError (code `invalid_config`) naming every bad variable, its value and why.
 */
export function readEnv<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv, across: (value: z.output<S>, set: ReadonlySet<string>) => readonly EnvProblem[] = () => []): z.output<S> {
  const set: Record<string, string> = {};
  for (const name of Object.keys(schema.shape)) {
    const value = env[name];
    if (value !== undefined && value !== '') set[name] = value;
  }
  const parsed = schema.safeParse(set);
  const problems: EnvProblem[] = parsed.success
    ? [...across(parsed.data, new Set(Object.keys(set)))]
    : parsed.error.issues.map((issue) => ({ name: String(issue.path[0] ?? ''), message: issue.message }));
  if (problems.length === 0 && parsed.success) return parsed.data;
  throw new ConfigError(problems.map(({ name, message }) => (name in set ? `${name}=${shownValue(name, set[name]!)}: ${message}` : `${name}: ${message}`)));
}
