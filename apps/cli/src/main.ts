import { Command, CommanderError } from 'commander';
import { schemaCommand } from './commands/schema.js';
import { validateCommand } from './commands/validate.js';
import { EXIT, processIo, type CliIo } from './io.js';

/** Builds the `tierflow` program; each action stores its exit code in `exit`. */
function program(io: CliIo, exit: { code: number }): Command {
  const cli = new Command('tierflow')
    .description('Tierflow: a queue-backed runtime for tiered agent systems')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError();

  cli
    .command('validate')
    .description('validate protocol messages (files, or - for standard input)')
    .argument('<files...>', 'message files, or - for standard input')
    .option('--json', 'print the reports as JSON')
    .action(async (files: string[], options: { json?: boolean }) => {
      exit.code = await validateCommand(files, options, io);
    });

  cli
    .command('schema')
    .description('print the JSON Schema of a wire type (default: message)')
    .argument('[type]', 'a wire type; --list shows them')
    .option('--list', 'list the wire types')
    .action((type: string | undefined, options: { list?: boolean }) => {
      exit.code = schemaCommand(type, options, io);
    });

  return cli;
}

/** Runs the CLI with the given arguments (without `node` and the script) and returns the exit code. */
export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  const exit = { code: EXIT.ok as number };
  try {
    await program(io, exit).parseAsync([...argv], { from: 'user' });
    return exit.code;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.unusable;
    io.stderr(`tierflow: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT.unusable;
  }
}
