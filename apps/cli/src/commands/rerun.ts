import { isTierflowError } from '@tierflow/protocol';
import type { ReplayMode } from '@tierflow/runtime/admin';
import { readRunExport, runtimeOptionsFromEnv, TierflowClient, type RunExport } from '@tierflow/runtime';
import { EXIT, parseJsonText, readInput, type CliIo } from '../io.js';
import { waitAndPrint, withSubmittingClient, type EnqueueOptions } from './enqueue.js';

export interface RerunOptions extends EnqueueOptions {
  /** A node of the run to fork from: it and its subtree run again, the rest is reused. */
  readonly from?: string;
  /** An exported run (`tierflow runs export`) to rerun instead of a run of this deployment; - for standard input. */
  readonly fromFile?: string;
  readonly replay?: ReplayMode;
  /** `path=value` edits: to the objective, or with `from` to that node's delegation. */
  readonly set?: readonly string[];
}

/**
 * `tierflow rerun <root-id> [--from <node-id>] [--replay[=strict]] [--set <path>=<value>]… [--wait]`,
 * or `tierflow rerun --from-file run.json …` (docs/operations.md#rerun-fork-and-replay): a new
 * run of the same objective, linked to the original; prints its root id, or with --wait its
 * outcome as `tierflow enqueue --wait` does. Exit 2 for a run or file that cannot be rerun as asked.
 */
export async function rerunCommand(rootId: string | undefined, options: RerunOptions, io: CliIo): Promise<number> {
  const runtime = runtimeOptionsFromEnv();
  if ((rootId === undefined) === (options.fromFile === undefined)) {
    io.stderr('tierflow rerun: give the run to rerun, either its root id or --from-file <file>, not both\n');
    return EXIT.unusable;
  }
  let source: string | RunExport = rootId ?? '';
  if (options.fromFile !== undefined) {
    const read = await readExport(options.fromFile, io);
    if (read === null) return EXIT.unusable;
    source = read;
  }
  return withSubmittingClient(runtime, io, async (client) => {
    try {
      const rerun = await client.rerun(source, { from: options.from ?? null, replay: options.replay ?? 'off', set: options.set ?? [] });
      for (const note of rerun.notes) io.stderr(`note: ${note}\n`);
      if (!options.wait) {
        io.stdout(`${rerun.rootId}\n`);
        return EXIT.ok;
      }
      return await waitAndPrint(client, rerun.rootId, options, io);
    } catch (error) {
      // What cannot be rerun as asked says why, with its code: a bad edit or node (2), an unknown run (1).
      if (!isTierflowError(error) || (error.kind !== 'invalid_input' && error.kind !== 'not_found')) throw error;
      io.stderr(`tierflow rerun: ${error.message} [${error.code}]\n`);
      return error.kind === 'invalid_input' ? EXIT.unusable : EXIT.invalid;
    }
  });
}

async function readExport(file: string, io: CliIo): Promise<RunExport | null> {
  let text: string;
  try {
    text = await readInput(file, io);
  } catch (error) {
    io.stderr(`cannot read ${file}: ${(error as Error).message}\n`);
    return null;
  }
  const json = parseJsonText(text);
  if (!json.ok) {
    io.stderr(`${file}: ${json.reason}\n`);
    return null;
  }
  const read = readRunExport(json.value);
  if (!read.ok) {
    io.stderr(`${file}: ${read.problem}\n`);
    return null;
  }
  return read.run;
}

/** `tierflow runs export <root-id>`: the run as JSON on standard output (rerun/run-export.ts), for `tierflow rerun --from-file`. */
export async function runsExportCommand(rootId: string, io: CliIo): Promise<number> {
  const client = await TierflowClient.connect(runtimeOptionsFromEnv());
  try {
    io.stdout(`${JSON.stringify(await client.exportRun(rootId), null, 2)}\n`);
    return EXIT.ok;
  } catch (error) {
    if (!isTierflowError(error) || error.code !== 'root_not_found') throw error;
    io.stderr(`${error.message}\n`);
    return EXIT.invalid;
  } finally {
    await client.close();
  }
}
