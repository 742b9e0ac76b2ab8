import type { TierLogger } from './handler.js';

/** Log lines on stderr, `<time> [<name>] <message> <fields as JSON>`; TIERFLOW_LOG=silent mutes them. */
export function consoleLogger(name: string, env: NodeJS.ProcessEnv = process.env): TierLogger {
  if (env.TIERFLOW_LOG === 'silent') return { info: () => undefined, warn: () => undefined };
  const write = (level: string, message: string, fields?: Record<string, unknown>): void => {
    const extra = fields && Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : '';
    process.stderr.write(`${new Date().toISOString()} ${level} [${name}] ${message}${extra}\n`);
  };
  return { info: (message, fields) => write('info', message, fields), warn: (message, fields) => write('warn', message, fields) };
}
