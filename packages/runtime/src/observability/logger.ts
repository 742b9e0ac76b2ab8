import { isTierflowError } from '@tierflow/protocol';
import { readTierflowVars } from '../config/tierflow-env.js';
import type { TierLogger } from '../policy/handler.js';

/**
 * Log lines on stderr, `<time> [<name>] <message> <fields as JSON>`; TIERFLOW_LOG=silent mutes them.
 * A bad TIERFLOW_LOG logs (a logger must not stop a process): the start-up check reports it.
 */
export function consoleLogger(name: string, env: NodeJS.ProcessEnv = process.env): TierLogger {
  if (logSetting(env) === 'silent') return { info: () => undefined, warn: () => undefined };
  const write = (level: string, message: string, fields?: Record<string, unknown>): void => {
    const extra = fields && Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : '';
    process.stderr.write(`${new Date().toISOString()} ${level} [${name}] ${message}${extra}\n`);
  };
  return { info: (message, fields) => write('info', message, fields), warn: (message, fields) => write('warn', message, fields) };
}

function logSetting(env: NodeJS.ProcessEnv): 'info' | 'silent' {
  try {
    return readTierflowVars(env, ['TIERFLOW_LOG']).TIERFLOW_LOG;
  } catch (error) {
    if (isTierflowError(error)) return 'info';
    throw error;
  }
}

/**
 * A warning said at most once per `intervalMs`, with how many were held back since. For input
 * that anyone who can publish may send: a flood of it must not become a flood of log lines.
 */
export function throttledWarning(log: TierLogger, message: string, intervalMs = 10_000, now: () => number = Date.now): (fields?: Record<string, unknown>) => void {
  let last = Number.NEGATIVE_INFINITY;
  let held = 0;
  return (fields = {}) => {
    const at = now();
    if (at - last < intervalMs) {
      held++;
      return;
    }
    log.warn(message, held > 0 ? { ...fields, held_back: held } : fields);
    last = at;
    held = 0;
  };
}

/** How many distinct kinds of warning {@link repeatedWarnings} keeps track of; past it, the oldest is forgotten. */
const KINDS_KEPT = 64;

/**
 * Warnings of one message, throttled per kind (see {@link throttledWarning}): each kind's first
 * is said at once, its repeats at most once per `intervalMs` with how many were held back. For
 * errors that come again and again while a cause lasts (Redis refusing writes answers every
 * command with the same error): one line per kind and interval rather than one per command.
 */
export function repeatedWarnings(log: TierLogger, message: string, intervalMs = 10_000, now: () => number = Date.now): (kind: string, fields?: Record<string, unknown>) => void {
  const kinds = new Map<string, (fields?: Record<string, unknown>) => void>();
  return (kind, fields) => {
    let warn = kinds.get(kind);
    if (!warn) {
      if (kinds.size >= KINDS_KEPT) kinds.delete(kinds.keys().next().value!);
      warn = throttledWarning(log, message, intervalMs, now);
      kinds.set(kind, warn);
    }
    warn(fields);
  };
}

/**
 * The kind of an error, for {@link repeatedWarnings}: a Redis error's code (`READONLY`, `NOPERM`,
 * `LOADING`: its first word, in capitals), else its whole message.
 */
export function errorKind(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return /^[A-Z][A-Z_]+(?= |$)/.exec(message)?.[0] ?? message;
}
