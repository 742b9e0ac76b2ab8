import { cellOf, connectReachable, readNodeView } from '@tierflow/runtime/admin';
import { runtimeOptionsFromEnv } from '@tierflow/runtime';
import { EXIT, type CliIo } from '../io.js';
import { renderNode } from '../render-node.js';

/**
 * `tierflow inspect <node-id> [--json] [--calls]`: one node of a run, any node: its input, its
 * outcome, its passes and waits, its model calls (docs/operations.md#inspecting-a-node). The run
 * is the node's root; its cell is the root's.
 */
export async function inspectCommand(nodeId: string, options: { json?: boolean; calls?: boolean }, io: CliIo): Promise<number> {
  const runtime = runtimeOptionsFromEnv();
  const redis = await connectReachable(runtime);
  try {
    const view = await readNodeView(redis, cellOf(runtime, nodeId).prefix, nodeId, runtime.signing);
    if (!view) {
      io.stderr(`no node ${nodeId} (unknown, or its run is past retention)\n`);
      return EXIT.invalid;
    }
    io.stdout(options.json ? `${JSON.stringify(view, null, 2)}\n` : renderNode(view, { calls: options.calls === true }));
    return EXIT.ok;
  } finally {
    redis.disconnect();
  }
}
