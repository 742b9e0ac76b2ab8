import { runtimeOptionsFromEnv, TierflowClient } from '@tierflow/runtime';
import { cellOf, connectReachable, isDigest, readNodeOutcome, rootIdOf } from '@tierflow/runtime/admin';
import { EXIT, type CliIo } from '../io.js';

/**
 * `tierflow result <node-id>`: a node's outcome message while it is retained, so a client that
 * died while waiting can still collect it. For a root, its final outcome (checked as `enqueue
 * --wait` checks it); for any other node, its job's return value, or the outcome its recording
 * kept. Exit 0 on success, 1 otherwise or when there is none (yet).
 */
export async function resultCommand(nodeId: string, io: CliIo): Promise<number> {
  const runtime = runtimeOptionsFromEnv();
  const outcome = rootIdOf(nodeId) === nodeId ? await rootOutcome(nodeId) : await nodeOutcome(nodeId);
  if (!outcome) {
    io.stderr(`no outcome for ${nodeId} (still running, unknown, or no longer retained)\n`);
    return EXIT.invalid;
  }
  if (isDigest(outcome)) {
    io.stderr(`the outcome of ${nodeId} was recorded by its size and hash only (TIERFLOW_RECORD=metadata), and its job is no longer retained\n`);
    return EXIT.invalid;
  }
  io.stdout(`${JSON.stringify(outcome, null, 2)}\n`);
  return statusOf(outcome) === 'success' ? EXIT.ok : EXIT.invalid;

  async function rootOutcome(rootId: string): Promise<unknown> {
    const client = await TierflowClient.connect(runtime);
    try {
      return await client.result(rootId);
    } finally {
      await client.close();
    }
  }

  async function nodeOutcome(id: string): Promise<unknown> {
    const redis = await connectReachable(runtime);
    try {
      return (await readNodeOutcome(redis, cellOf(runtime, id).prefix, id))?.message ?? null;
    } finally {
      redis.disconnect();
    }
  }
}

function statusOf(outcome: unknown): unknown {
  const payload = typeof outcome === 'object' && outcome !== null ? (outcome as { payload?: unknown }).payload : null;
  return typeof payload === 'object' && payload !== null ? (payload as { status?: unknown }).status : null;
}
