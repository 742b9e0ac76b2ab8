import { formatValidationError, isTierflowError, validateWith } from '@tierflow/protocol';
import { checkObjectiveSize, objectiveFileSchema, runtimeOptionsFromEnv, TierflowClient } from '@tierflow/runtime';
import { startTelemetry } from '@tierflow/telemetry';
import { EXIT, parseJsonText, readInput, type CliIo } from '../io.js';

export interface EnqueueOptions {
  readonly wait?: boolean;
  readonly timeoutMs?: number;
}

/**
 * `tierflow enqueue <file|->`: validates an objective file, enqueues it and prints the root id.
 * With --wait, prints the final outcome message as JSON and exits 0 only when it succeeded; with
 * no outcome (past the limit, which defaults from the objective's timeout_ms, or a root that no
 * longer exists) it says why and exits 1. An objective over the deployment's limits (a file over
 * TIERFLOW_MAX_OBJECTIVE_BYTES, more subtasks than TIERFLOW_MAX_SUBTASKS) is refused, exit 2,
 * before any of it is enqueued or, for the file, read past the limit.
 */
export async function enqueueCommand(source: string, options: EnqueueOptions, io: CliIo): Promise<number> {
  // Configuration first: a bad variable stops the command (exit 2) before it reads anything.
  const runtime = runtimeOptionsFromEnv();
  let text: string;
  try {
    text = await readInput(source, io, runtime.limits);
  } catch (error) {
    io.stderr(isTierflowError(error) ? `${error.message} [${error.code}]\n` : `cannot read ${source}: ${(error as Error).message}\n`);
    return EXIT.unusable;
  }
  const json = parseJsonText(text);
  if (!json.ok) {
    io.stderr(`${source}: ${json.reason}\n`);
    return EXIT.unusable;
  }
  try {
    checkObjectiveSize(json.value, runtime.limits);
  } catch (error) {
    if (!isTierflowError(error)) throw error;
    io.stderr(`${source}: ${error.message} [${error.code}]\n`);
    return EXIT.unusable;
  }
  const objective = validateWith(objectiveFileSchema, json.value);
  if (!objective.ok) {
    io.stderr(`${source}: not a valid objective file:\n${objective.errors.map((error) => `  ${formatValidationError(error)}\n`).join('')}`);
    return EXIT.unusable;
  }
  const telemetry = startTelemetry({ serviceName: 'tierflow-cli' });
  const client = new TierflowClient(runtime);
  try {
    const rootId = await client.enqueue(objective.value);
    if (!options.wait) {
      io.stdout(`${rootId}\n`);
      return EXIT.ok;
    }
    io.stderr(`${rootId}\n`);
    try {
      const outcome = await client.waitForResult(rootId, options.timeoutMs ? { timeoutMs: options.timeoutMs } : {});
      io.stdout(`${JSON.stringify(outcome, null, 2)}\n`);
      return outcome.payload.status === 'success' ? EXIT.ok : EXIT.invalid;
    } catch (error) {
      // A timeout, a vanished root, a failed one: each says so, with its code (RootWaitError).
      io.stderr(`no outcome for ${rootId}: ${(error as Error).message}${isTierflowError(error) ? ` [${error.code}]` : ''}\n`);
      return EXIT.invalid;
    }
  } finally {
    await client.close();
    await telemetry.shutdown();
  }
}
