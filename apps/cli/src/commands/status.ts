import { runtimeOptionsFromEnv, TierflowClient } from '@tierflow/runtime';
import { unservedNotice } from '@tierflow/runtime/admin';
import { EXIT, type CliIo } from '../io.js';
import { renderTree } from '../render-tree.js';

/** `tierflow status <root-id> [--json] [--debug]`: the run's tree, from its audit trail and the jobs still retained, and a line for each tier it waits on that no worker serves. */
export async function statusCommand(rootId: string, options: { json?: boolean; debug?: boolean }, io: CliIo): Promise<number> {
  const client = await TierflowClient.connect(runtimeOptionsFromEnv());
  try {
    const tree = await client.tree(rootId);
    if (!tree) {
      io.stderr(`no run ${rootId} (unknown, or its jobs and audit trail are past retention)\n`);
      return EXIT.invalid;
    }
    io.stdout(options.json ? `${JSON.stringify(tree, null, 2)}\n` : renderTree(tree, undefined, { debug: options.debug ?? false }));
    // Below the tree, or beside the JSON: a run no worker serves says so.
    for (const tier of await client.unservedTiers(tree)) (options.json ? io.stderr : io.stdout)(`${unservedNotice(tier)}\n`);
    return EXIT.ok;
  } finally {
    await client.close();
  }
}
