import { runtimeOptionsFromEnv, TierflowClient } from '@tierflow/runtime';
import { EXIT, type CliIo } from '../io.js';
import { renderTree } from '../render-tree.js';

/** `tierflow status <root-id> [--json]`: the run's tree, from its audit trail and the jobs still retained. */
export async function statusCommand(rootId: string, options: { json?: boolean }, io: CliIo): Promise<number> {
  const client = await TierflowClient.connect(runtimeOptionsFromEnv());
  try {
    const tree = await client.tree(rootId);
    if (!tree) {
      io.stderr(`no run ${rootId} (unknown, or its jobs and audit trail are past retention)\n`);
      return EXIT.invalid;
    }
    io.stdout(options.json ? `${JSON.stringify(tree, null, 2)}\n` : renderTree(tree));
    return EXIT.ok;
  } finally {
    await client.close();
  }
}
