import { formatValidationError, isTierflowError, validateWith } from '@tierflow/protocol';
import { checkObjectiveSize, CLIENT, signerOf } from '@tierflow/runtime/admin';
import { objectiveFileSchema, runtimeOptionsFromEnv, TierflowClient, type RunNode, type RuntimeOptions } from '@tierflow/runtime';
import { startTelemetry } from '@tierflow/telemetry';
import { setTimeout as sleep } from 'node:timers/promises';
import { EXIT, parseJsonText, readInput, type CliIo } from '../io.js';
import { LIVE_INTERVAL_MS, liveTree, type LiveTree } from '../live-tree.js';
import { renderOutcome } from '../render-outcome.js';
import { sayUnserved, UnservedNotes } from '../unserved-notes.js';

export interface EnqueueOptions {
  readonly wait?: boolean;
  readonly timeoutMs?: number;
  /** With --wait, where the run's tree is drawn live while it runs (standard error when it is a terminal); none: nothing drawn. */
  readonly terminal?: NodeJS.WriteStream | null;
  /** With --wait, the outcome as a few lines for a person (standard output is a terminal), unless `json`. */
  readonly summary?: boolean;
  /** With --wait, the outcome message as JSON, whatever standard output is. */
  readonly json?: boolean;
}

/**
 * `tierflow enqueue <file|->`: validates an objective file, enqueues it and prints the root id.
 * With --wait, prints the final outcome and exits 0 only when it succeeded, having drawn the run's
 * tree live on `terminal` meanwhile, when there is one, and said when a tier it waits on has no
 * worker running. The outcome is a few lines for a person when `summary` is set (standard output
 * is a terminal) and --json is not; otherwise the outcome message as JSON, as scripts that pipe it
 * have always read it; with no outcome (past the
 * limit, which defaults from the objective's timeout_ms, or a root that no longer exists) it says
 * why and exits 1. An objective over the deployment's limits (a file over
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
  return withSubmittingClient(runtime, io, async (client) => {
    const rootId = await client.enqueue(objective.value);
    if (!options.wait) {
      io.stdout(`${rootId}\n`);
      return EXIT.ok;
    }
    return await waitAndPrint(client, rootId, options, io);
  });
}

/**
 * Runs `work` with a client that submits roots, closed after it. A deployment that signs refuses
 * unsigned roots: a process without the client's key learns so before it connects (exit 2).
 */
export async function withSubmittingClient(runtime: RuntimeOptions, io: CliIo, work: (client: TierflowClient) => Promise<number>): Promise<number> {
  try {
    signerOf(runtime.signing, CLIENT);
  } catch (error) {
    if (!isTierflowError(error)) throw error;
    io.stderr(`${error.message}\n`);
    return EXIT.unusable;
  }
  const telemetry = await startTelemetry({ serviceName: 'tierflow-cli' });
  let client: TierflowClient;
  try {
    client = await TierflowClient.connect(runtime);
  } catch (error) {
    await telemetry.shutdown();
    throw error;
  }
  try {
    return await work(client);
  } finally {
    await client.close();
    await telemetry.shutdown();
  }
}

/**
 * `--wait` of enqueue and rerun: says the root id on standard error, draws the run's tree live on
 * `terminal` when there is one (else says when a tier it waits on has no worker), then prints the
 * outcome; exit 0 only when it succeeded, 1 with no outcome.
 */
export async function waitAndPrint(client: TierflowClient, rootId: string, options: EnqueueOptions, io: CliIo): Promise<number> {
  io.stderr(`${rootId}\n`);
  const live = options.terminal ? drawUntilEnd(client, rootId, liveTree(options.terminal, 'waiting')) : null;
  // Without a live view, a run no worker serves is said on standard error, once a tier.
  const noting = new AbortController();
  if (!live) void sayUnserved(client, rootId, (note) => io.stderr(`${note}\n`), noting.signal);
  try {
    const outcome = await client.waitForResult(rootId, options.timeoutMs ? { timeoutMs: options.timeoutMs } : {});
    noting.abort();
    await live?.end(true);
    io.stdout(options.summary && !options.json ? renderOutcome(rootId, outcome) : `${JSON.stringify(outcome, null, 2)}\n`);
    return outcome.payload.status === 'success' ? EXIT.ok : EXIT.invalid;
  } catch (error) {
    noting.abort();
    await live?.end(false);
    // A timeout, a vanished root, a failed one: each says so, with its code (RootWaitError).
    io.stderr(`no outcome for ${rootId}: ${(error as Error).message}${isTierflowError(error) ? ` [${error.code}]` : ''}\n`);
    return EXIT.invalid;
  }
}

/**
 * Redraws the run's tree every half second until `end`, which leaves the view on screen: drawn
 * once more, as the run ended, when there is an outcome. The wait decides what the command says:
 * a tree that cannot be read (a lost connection, a vanished root) is skipped, not reported.
 */
function drawUntilEnd(client: TierflowClient, rootId: string, live: LiveTree): { end(outcome: boolean): Promise<void> } {
  const stop = new AbortController();
  const read = (): Promise<RunNode | null> => client.tree(rootId).catch(() => null);
  const notes = new UnservedNotes(client);
  void (async () => {
    while (!stop.signal.aborted) {
      const tree = await read();
      const { current } = tree ? await notes.update(tree) : { current: [] };
      // A read that comes back after the end is dropped: the view is finished.
      if (tree && !stop.signal.aborted) live.draw(tree, current);
      await sleep(LIVE_INTERVAL_MS, undefined, { signal: stop.signal }).catch(() => undefined);
    }
  })();
  return {
    end: async (outcome) => {
      stop.abort();
      // Without an outcome Redis may be gone, and a read would wait for it (the client retries
      // forever): the last drawing stays. With one, Redis has just answered.
      if (outcome) {
        const tree = await read();
        if (tree) live.draw(tree);
      }
      live.done();
    },
  };
}
