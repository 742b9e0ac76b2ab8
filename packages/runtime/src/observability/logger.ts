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
