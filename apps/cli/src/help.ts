import { readFileSync } from 'node:fs';
import { DEFAULT_PREFIX, DEFAULT_REDIS_URL } from '@tierflow/runtime/admin';
import type { Command } from 'commander';

/** The top-level help's groups, in order; a command that is in none of them is listed last, under "Other commands". */
const GROUPS: readonly (readonly [heading: string, commands: readonly string[]])[] = [
  ['Runs:', ['enqueue', 'status', 'watch', 'runs', 'inspect', 'result', 'rerun', 'answer', 'unblock', 'cancel', 'audit', 'trace']],
  ['Operations:', ['dev', 'up', 'worker', 'serve', 'mcp', 'demo', 'workers', 'stats', 'dlq', 'config', 'lock', 'validate', 'schema', 'completion']],
  ['Security:', ['keys', 'acl']],
];

const ENVIRONMENT = `
Environment:
  REDIS_URL          the Redis to use (default ${DEFAULT_REDIS_URL}); rediss:// for TLS
  TIERFLOW_CONFIG    the project file (default: tierflow.config.{ts,mts,js,mjs,json} here)
  TIERFLOW_PREFIX    the deployment's key prefix in Redis (default ${DEFAULT_PREFIX})
  TIERFLOW_LOG       the workers' log level, or silent
  tierflow config shows every setting and where its value came from; docs/operations.md describes them.
`;

/** The version of this package, as `tierflow --version` prints it. */
export function cliVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof manifest.version === 'string' ? manifest.version : 'unknown';
}

/**
 * Groups the commands in the top-level help, names the variables a newcomer needs, and makes a
 * usage error answer with one line pointing at the help instead of the whole help.
 */
export function arrangeHelp(cli: Command): void {
  const grouped = new Map(GROUPS.flatMap(([heading, names]) => names.map((name) => [name, heading] as const)));
  // Commander lists the groups in the order it meets their commands: sort the commands as GROUPS lists them.
  const listed = GROUPS.flatMap(([, names]) => names);
  const order = (command: Command): number => (listed.includes(command.name()) ? listed.indexOf(command.name()) : listed.length);
  // Commander's list is typed read-only but is the very array the help reads; the sort is stable.
  (cli.commands as Command[]).sort((a, b) => order(a) - order(b));
  for (const command of cli.commands) {
    command.helpGroup(grouped.get(command.name()) ?? 'Other commands:');
    command.showHelpAfterError(`tierflow ${command.name()} --help shows its usage`);
  }
  // `help [command]` goes with the operations (named here, Commander puts it in the group set before).
  cli.commandsGroup('Operations:').helpCommand('help [command]', 'display help for command');
  cli.showHelpAfterError('tierflow --help lists the commands');
  cli.addHelpText('after', ENVIRONMENT);
}
