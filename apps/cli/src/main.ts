import { errorKindOf } from '@tierflow/protocol';
import { configProblems, parseRunStatus, REPLAY_MODES, type ReplayMode } from '@tierflow/runtime/admin';
import { RUN_STATUSES, type RunStatus } from '@tierflow/runtime';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { auditKindsOf } from './audit-filter.js';
import type { AclOptions } from './commands/acl.js';
import type { AuditOptions } from './commands/audit.js';
import { arrangeHelp, cliVersion } from './help.js';
import type { KeysOptions } from './commands/keys.js';
import type { RunsOptions } from './commands/runs.js';
import type { StatsOptions } from './commands/stats.js';
import { pastTime, usdAmount } from './run-query.js';
import { endQuietlyOnClosedPipe } from './closed-pipe.js';
import { exitCodeOf } from './exit-codes.js';
import { EXIT, processIo, terminalConfirm, type CliIo } from './io.js';

const CONFIG_FLAG = '--config <file>';
const CONFIG_HELP = 'the project file (default: TIERFLOW_CONFIG, else tierflow.config.{ts,mts,js,mjs,json} here)';

/**
 * Builds the `tierflow` program; each action stores its exit code in `exit`. A command's module
 * is loaded when it runs: a worker, or a quick `tierflow status`, does not load what the server,
 * the dashboard or the other commands need (loading them all doubled a short command's start-up:
 * test/bench/RESULTS.md).
 */
function program(io: CliIo, exit: { code: number }): Command {
  const cli = new Command('tierflow')
    .description('Tierflow: a queue-backed runtime for tiered agent systems')
    .exitOverride()
    .version(cliVersion(), '-V, --version', 'print the version')
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });

  cli
    .command('validate')
    .description('validate objective files and protocol messages (files, or - for standard input), saying which kind each is')
    .argument('<files...>', 'objective or message files, or - for standard input')
    .option('--json', 'print the reports as JSON')
    .action(async (files: string[], options: { json?: boolean }) => {
      const { validateCommand } = await import('./commands/validate.js');
      exit.code = await validateCommand(files, options, io);
    });

  cli
    .command('schema')
    .description('print the JSON Schema of a wire type (default: message), or of the objective file (objective)')
    .argument('[type]', 'a wire type, or objective; --list shows them')
    .option('--list', 'list the wire types')
    .action(async (type: string | undefined, options: { list?: boolean }) => {
      const { schemaCommand } = await import('./commands/schema.js');
      exit.code = schemaCommand(type, options, io);
    });

  cli
    .command('worker')
    .description('run one tier in the foreground (monitor, architect, dispatcher or fleet); SIGINT/SIGTERM stop it cleanly')
    .argument('<tier>', 'monitor | architect | dispatcher | fleet')
    .option('--concurrency <n>', 'jobs this process runs at once in each cell it serves', positiveInt)
    .option('--cells <list>', 'serve only these cells of the deployment (TIERFLOW_CELLS), e.g. 0,2; default: every cell')
    .option(CONFIG_FLAG, CONFIG_HELP)
    .action(async (tier: string, options: { concurrency?: number; cells?: string; config?: string }) => {
      const { workerCommand } = await import('./commands/worker.js');
      exit.code = await workerCommand(tier, options, io);
    });

  cli
    .command('up')
    .description('run the four tier workers as four processes, output prefixed by tier')
    .option(CONFIG_FLAG, CONFIG_HELP)
    .action(async (options: { config?: string }) => {
      const { upCommand } = await import('./commands/up.js');
      exit.code = await upCommand(options, io);
    });

  cli
    .command('dev')
    .description('everything on this machine: a Redis of its own (data in .tierflow/), the four tiers, the dashboard on 127.0.0.1; Ctrl-C stops it all')
    .option('--port <n>', 'the dashboard port (0: any free port)', portNumber, 8080)
    .option('--redis-port <n>', 'the port of its redis-server (default, or 0: a free one); ignored with REDIS_URL set, which dev then uses instead', portNumber)
    .option('--open', 'open the dashboard in the browser')
    .option(CONFIG_FLAG, CONFIG_HELP)
    .action(async (options: { port: number; redisPort?: number; open?: boolean; config?: string }) => {
      const { devCommand } = await import('./commands/dev.js');
      exit.code = await devCommand(options, io);
    });

  cli
    .command('enqueue')
    .description('validate an objective file and enqueue it; prints the root id')
    .argument('<file>', 'objective file, or - for standard input')
    .option(
      '--wait',
      "wait and print the final outcome (exit 0 only on success): its summary on a terminal, the outcome message as JSON otherwise; meanwhile, when stderr is a terminal, draw the run's tree live there",
    )
    .option('--timeout-ms <n>', "with --wait: give up after this long (default: the objective's timeout_ms + 5 s, or 1 h without one)", positiveInt)
    .option('--json', 'with --wait: print the outcome message as JSON, on a terminal too')
    .action(async (file: string, options: { wait?: boolean; timeoutMs?: number; json?: boolean }) => {
      // Standard error, not standard output: the outcome stays clean for whatever reads it.
      const { enqueueCommand } = await import('./commands/enqueue.js');
      exit.code = await enqueueCommand(file, { ...options, terminal: process.stderr.isTTY ? process.stderr : null, summary: process.stdout.isTTY === true }, io);
    });

  cli
    .command('rerun')
    .description('run a run again, linked to it: the whole of it, or a fork from one node reusing the rest; model calls replayed from its recording on request; prints the new root id')
    .argument('[root-id]', 'the run to rerun (or --from-file)')
    .option('--from <node-id>', 'fork: run this node and its subtree again (with the --set edits made to its delegation), reuse the recorded outcomes of the others')
    .option('--replay [mode]', 'answer model calls from the recording: loose (the default: a call that matches nothing goes to the model) or strict (it fails, replay_miss)', replayMode)
    .option('--set <path=value>', 'edit the objective (or with --from the node’s delegation): a dotted path, and JSON or plain text, e.g. objective="a new objective"; repeat it for more', collect, [])
    .option('--from-file <file>', 'rerun an exported run (tierflow runs export), or - for standard input')
    .option('--wait', 'wait and print the final outcome, as tierflow enqueue --wait does')
    .option('--timeout-ms <n>', 'with --wait: give up after this long', positiveInt)
    .option('--json', 'with --wait: print the outcome message as JSON, on a terminal too')
    .action(async (rootId: string | undefined, options: { from?: string; replay?: ReplayMode | true; set: string[]; fromFile?: string; wait?: boolean; timeoutMs?: number; json?: boolean }) => {
      const { rerunCommand } = await import('./commands/rerun.js');
      // --replay without a mode is loose.
      const { replay, ...rest } = options;
      exit.code = await rerunCommand(
        rootId,
        { ...rest, ...(replay === undefined ? {} : { replay: replay === true ? 'loose' : replay }), terminal: process.stderr.isTTY ? process.stderr : null, summary: process.stdout.isTTY === true },
        io,
      );
    });

  cli
    .command('status')
    .description("show a run's tree")
    .argument('<root-id>', 'the id printed by enqueue')
    .option('--json', 'print the tree as JSON')
    .option('--debug', "show each node's BullMQ state beside its status")
    .action(async (rootId: string, options: { json?: boolean; debug?: boolean }) => {
      const { statusCommand } = await import('./commands/status.js');
      exit.code = await statusCommand(rootId, options, io);
    });

  cli
    .command('watch')
    .description('follow a run live until it ends: the tree redrawn on a terminal, plain lines otherwise, --json for one event a line')
    .argument('<root-id>', 'the id printed by enqueue')
    .option('--json', 'one JSON event a line (NDJSON), the outcome last')
    .option('--debug', "show each node's BullMQ state beside its status")
    .action(async (rootId: string, options: { json?: boolean; debug?: boolean }) => {
      const { watchCommand } = await import('./commands/watch.js');
      exit.code = await watchCommand(rootId, { ...options, terminal: process.stdout.isTTY ? process.stdout : null }, io);
    });

  cli
    .command('runs')
    .description('list runs, latest first, filtered, a page at a time')
    .option('--status <status>', 'only runs of this status: queued, running, waiting_for_children, input_required, retrying, deferred, or an outcome status (success, failed, blocked, …)', statusWord)
    .option('--text <text>', 'only runs whose objective holds this text, in any case')
    .option('--task-type <type>', 'only runs with a delegation of this task type')
    .option('--specialist <name>', 'only runs with an outcome from this specialist')
    .option('--model <name>', 'only runs with an outcome from this model')
    .option('--error <type>', 'only runs with an outcome of this error type (timeout, format_mismatch, …)')
    .option('--since <time>', 'only runs submitted since: an ISO time, or how long ago (2h, 3d)', (value: string) => pastTime(value, Date.now()))
    .option('--until <time>', 'only runs submitted until: an ISO time, or how long ago', (value: string) => pastTime(value, Date.now()))
    .option('--min-cost <usd>', 'only runs whose model calls cost at least this many USD', usdAmount)
    .option('--max-cost <usd>', 'only runs whose model calls cost at most this many USD', usdAmount)
    .option('--limit <n>', 'at most this many (default 20)', positiveInt)
    .option('--cursor <cursor>', 'the page after the one that printed this cursor')
    .option('--json', 'print the page as JSON: its runs and next_cursor')
    .option('--debug', "show each run's BullMQ state beside its status")
    .action(async (options: RunsOptions) => {
      const { runsCommand } = await import('./commands/runs.js');
      exit.code = await runsCommand(options, io);
    });
  // `runs export`: a sub-command of runs, found by name so the list's own definition stays as it is.
  cli.commands
    .find((command) => command.name() === 'runs')
    ?.command('export')
    .description('print a run as JSON (its objective, recording and outcomes), for tierflow rerun --from-file')
    .argument('<root-id>', 'the run')
    .action(async (rootId: string) => {
      const { runsExportCommand } = await import('./commands/rerun.js');
      exit.code = await runsExportCommand(rootId, io);
    });

  cli
    .command('stats')
    .description('what the Monitor learned of each specialist, per task type: success, calibration, latency, tokens, cost, surprises; routing and bottlenecks')
    .option('--task-type <type>', 'only this task type')
    .option('--json', 'print the history report as JSON')
    .action(async (options: StatsOptions) => {
      const { statsCommand } = await import('./commands/stats.js');
      exit.code = await statsCommand(options, io);
    });

  cli
    .command('workers')
    .description('list the live worker processes of each tier, from their heartbeats')
    .option('--json', 'print them as JSON')
    .action(async (options: { json?: boolean }) => {
      const { workersCommand } = await import('./commands/workers.js');
      exit.code = await workersCommand(options, io);
    });

  cli
    .command('audit')
    .description("print a run's audit trail: every message its tiers sent and received, in order; `audit export` writes trails as JSON lines")
    .argument('<root-id>', 'the id printed by enqueue, or `export` followed by the roots to export')
    .argument('[roots...]', 'with `export`: the roots whose trails to write')
    .option(
      '--kind <kind>',
      'only entries of this kind (repeat it, or separate kinds by commas): delegation, outcome, cancellation, progress, question, answer, decision, gap, tool, refusal, security',
      auditKindsOf,
    )
    .option('--progress', 'show the progress notes too (the table leaves them out unless asked)')
    .option('--json', 'print the entries as JSON (progress notes included unless --kind narrows them)')
    .option('--verify', "check the trail's hash chain: exit 1 if an entry was edited, added by hand or removed")
    .option('--all', 'with `export`: every trail the deployment holds')
    .action(async (rootId: string, roots: string[], options: AuditOptions & { all?: boolean }) => {
      if (rootId === 'export') {
        const { auditExportCommand } = await import('./commands/audit-export.js');
        exit.code = await auditExportCommand(roots, options, io);
        return;
      }
      if (roots.length > 0) {
        io.stderr(`audit takes one root id (or \`audit export <root-id>...\`), not ${roots.length + 1}\n`);
        exit.code = EXIT.unusable;
        return;
      }
      const { auditCommand } = await import('./commands/audit.js');
      exit.code = await auditCommand(rootId, options, io);
    });

  cli
    .command('result')
    .description("print a node's outcome (a root's final one) while it is retained; exit 0 only on success")
    .argument('<node-id>', 'a root id, as enqueue prints it, or any node of its run')
    .action(async (rootId: string) => {
      const { resultCommand } = await import('./commands/result.js');
      exit.code = await resultCommand(rootId, io);
    });

  cli
    .command('inspect')
    .description('show one node of a run: its input, outcome, passes, waits and model calls')
    .argument('<node-id>', 'a node id, as tierflow status prints it (a root id too)')
    .option('--json', 'print the node as JSON')
    .option('--calls', "show each model call's prompt and answer in full")
    .action(async (nodeId: string, options: { json?: boolean; calls?: boolean }) => {
      const { inspectCommand } = await import('./commands/inspect.js');
      exit.code = await inspectCommand(nodeId, options, io);
    });

  cli
    .command('dlq')
    .description('the jobs a tier refused: list, show <id>, replay <id> [--file corrected.json] [--sign], purge [--yes]')
    .argument('<action>', 'list | show | replay | purge')
    .argument('[id]', 'a dead letter id, for show and replay')
    .option('--file <file>', 'replay: put this message on the queue instead of the refused one')
    .option('--sign', "replay: date it now and sign it as its sender (TIERFLOW_KEYS_DIR must hold the sender's private key), for a deployment that signs")
    .option('--yes', 'purge: delete without asking (needed when standard input is not a terminal)')
    .action(async (action: string, id: string | undefined, options: { file?: string; sign?: boolean; yes?: boolean }) => {
      const { dlqCommand } = await import('./commands/dlq.js');
      exit.code = await dlqCommand(action, id, { ...options, confirm: terminalConfirm() }, io);
    });

  cli
    .command('trace')
    .description("print a run's trace id and its Jaeger URL (JAEGER_URL, default http://localhost:16686)")
    .argument('<root-id>', 'the id printed by enqueue')
    .action(async (rootId: string) => {
      const { traceCommand } = await import('./commands/trace.js');
      exit.code = await traceCommand(rootId, io);
    });

  cli
    .command('cancel')
    .description('cancel a root or any delegation; it answers cancelled with its partial results')
    .argument('<message-id>', 'a root id, or the id of a delegation in a run')
    .option('--reason <text>', 'why, for the outcome and the logs')
    .option('--no-cascade', 'cancel only this message and leave its children running')
    .action(async (messageId: string, options: { reason?: string; cascade?: boolean }) => {
      const { cancelCommand } = await import('./commands/cancel.js');
      exit.code = await cancelCommand(messageId, options, io);
    });

  cli
    .command('serve')
    .description('serve the runs over HTTP: a web dashboard at /, the API under /api, its OpenAPI description, live events, Bull Board at /queues')
    .option('--host <host>', 'the address to listen on (beyond loopback, TIERFLOW_API_TOKEN is required)', '127.0.0.1')
    .option('--port <n>', 'the port', portNumber, 8080)
    .action(async (options: { host: string; port: number }) => {
      const { serveCommand } = await import('./commands/serve.js');
      exit.code = await serveCommand(options, io);
    });

  cli
    .command('mcp')
    .description('serve the runs to an MCP client over stdio (an assistant, an IDE, an agent): tools to enqueue, follow, answer and cancel runs, and their outcomes as resources')
    .action(async () => {
      const { mcpCommand } = await import('./commands/mcp.js');
      exit.code = await mcpCommand(io);
    });

  cli
    .command('answer')
    .description('answer a run that waits for a person (status input_required); it goes on once every question is answered')
    .argument('<root-id>', 'the run')
    .argument('<text>', 'the answer')
    .option('--to <question-id>', 'answer this question only (ids as tierflow status lists them); default: every open one')
    .action(async (rootId: string, text: string, options: { to?: string }) => {
      const { answerCommand } = await import('./commands/answer.js');
      exit.code = await answerCommand(rootId, text, options, io);
    });

  cli
    .command('unblock')
    .description('unblock a run that waits on blocked work (status blocked); it goes on once every blocker is lifted')
    .argument('<id>', 'the run (every open blocker), or a node of it (the blockers reported at or below it)')
    .option('--note <text>', 'what changed: handed to the work sent again (task_data.unblocked)')
    .action(async (id: string, options: { note?: string }) => {
      const { unblockCommand } = await import('./commands/unblock.js');
      exit.code = await unblockCommand(id, options, io);
    });

  cli
    .command('acl')
    .description('Redis users per tier (ACL): print an ACL file, or apply it to a server; passwords from TIERFLOW_ACL_PASSWORD_<USER>')
    .argument('<action>', 'print | apply')
    .option('--prefix <prefix>', 'the deployment prefix (default: TIERFLOW_PREFIX, else {tierflow})')
    .option('--admin-url <url>', 'apply: an admin connection (default: ADMIN_REDIS_URL)')
    .option('--save', 'apply: ACL SAVE afterwards, for a server started with an ACL file')
    .action(async (action: string, options: AclOptions) => {
      const { aclCommand } = await import('./commands/acl.js');
      exit.code = await aclCommand(action, options, io);
    });

  cli
    .command('keys')
    .description('signing keys, one Ed25519 key pair per tier and for the client: generate | rotate <party> | retire <key-id> | list')
    .argument('<action>', 'generate | rotate | retire | list')
    .argument('[party-or-key]', 'rotate: monitor, architect, dispatcher, fleet or client; retire: a key id')
    .option('--dir <dir>', 'the key directory (default: TIERFLOW_KEYS_DIR)')
    .action(async (action: string, argument: string | undefined, options: KeysOptions) => {
      const { keysCommand } = await import('./commands/keys.js');
      exit.code = keysCommand(action, argument, options, io);
    });

  cli
    .command('demo')
    .description("start the four tiers, run the examples, show each run's tree, stop everything")
    .argument('[dir]', 'a folder of objective files (default: examples/)')
    .option('--keep', 'then keep the workers and the dashboard up, to browse the runs, until Ctrl-C')
    .option('--port <n>', 'with --keep: the dashboard port (0: any free port)', portNumber, 8080)
    .option(CONFIG_FLAG, CONFIG_HELP)
    .action(async (dir: string | undefined, options: { config?: string; keep?: boolean; port: number }) => {
      const { demoCommand } = await import('./commands/demo.js');
      exit.code = await demoCommand(dir, options, io);
    });

  cli
    .command('config')
    .description('print the resolved configuration: each setting, its value and where it came from (env, project file, default); secrets hidden')
    .option(CONFIG_FLAG, CONFIG_HELP)
    .option('--json', 'print the settings as JSON')
    .action(async (options: { config?: string; json?: boolean }) => {
      const { configCommand } = await import('./commands/config.js');
      exit.code = await configCommand(options, io);
    });

  cli
    .command('lock')
    .description("write the lock file of the project's agents (their versions and prompt hashes); --check compares, --accept reconciles one agent")
    .option(CONFIG_FLAG, CONFIG_HELP)
    .option('--check', 'compare the lock file with the agents as they are now: exit 1 listing each difference')
    .option('--accept <agent>', 'reconcile one agent: write its current entry into the lock file and lift its block')
    .action(async (options: { config?: string; check?: boolean; accept?: string }) => {
      const { lockCommand } = await import('./commands/lock.js');
      exit.code = await lockCommand(options, io);
    });

  cli
    .command('completion')
    .description('print the completion script of a shell: its commands and their options')
    .argument('<shell>', 'bash | zsh | fish')
    .action(async (shell: string) => {
      const [{ completionCommand }, { completedCommands }] = await Promise.all([import('./commands/completion.js'), import('./completion.js')]);
      exit.code = completionCommand(shell, completedCommands(cli), io);
    });

  arrangeHelp(cli);
  return cli;
}

/** A word of the status vocabulary, as typed (`waiting for children` reads as `waiting_for_children`). */
function statusWord(value: string): RunStatus {
  const status = parseRunStatus(value);
  if (status === null) throw new InvalidArgumentError(`must be a status: ${RUN_STATUSES.join(', ')}`);
  return status;
}

/** `--replay` alone is loose; `--replay=strict` (or `=loose`, `=off`) says which. */
function replayMode(value: string): ReplayMode {
  if (!(REPLAY_MODES as readonly string[]).includes(value)) throw new InvalidArgumentError(`must be one of ${REPLAY_MODES.join(', ')} (as --replay=strict)`);
  return value as ReplayMode;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function positiveInt(value: string): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed <= 0) throw new InvalidArgumentError('must be a positive whole number');
  return parsed;
}

function portNumber(value: string): number {
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || parsed > 65_535) throw new InvalidArgumentError('must be a port number, 0 to 65535 (0: any free port)');
  return parsed;
}

/** Runs the CLI with the given arguments (without `node` and the script) and returns the exit code. */
export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  const exit = { code: EXIT.ok as number };
  if (io === processIo) endQuietlyOnClosedPipe();
  try {
    await program(io, exit).parseAsync([...argv], { from: 'user' });
    return exit.code;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.unusable;
    // The error's kind decides the exit status: 3 for a Redis that cannot be used, 2 for a bad
    // configuration (docs/protocol.md#thrown-errors). One line each (a Redis error names the URL,
    // password hidden, and why), no stack.
    const problems = configProblems(error);
    if (problems) io.stderr(`tierflow: invalid configuration\n${problems.map((problem) => `  ${problem}\n`).join('')}`);
    else io.stderr(`tierflow: ${error instanceof Error ? error.message : String(error)}\n`);
    return exitCodeOf(errorKindOf(error));
  }
}
