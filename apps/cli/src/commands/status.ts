import { runtimeOptionsFromEnv, TierflowClient } from '@tierflow/runtime';
import { unservedNotice } from '@tierflow/runtime/admin';
import { EXIT, type CliIo } from '../io.js';
import { renderTree } from '../render-tree.js';

function linkLines(links: { readonly rerun_of: string | null; readonly reruns: readonly string[] }): string {
  return `${links.rerun_of === null ? '' : `rerun of ${links.rerun_of}\n`}${links.reruns.length === 0 ? '' : `reruns: ${links.reruns.join(', ')}\n`}`;
}

/** `tierflow status <root-id> [--json] [--debug]`: the run's tree, from its audit trail and the jobs still retained, and a line for each tier it waits on that no worker serves. */
export async function statusCommand(rootId: string, options: { json?: boolean; debug?: boolean }, io: CliIo): Promise<number> {
  const client = await TierflowClient.connect(runtimeOptionsFromEnv());
  try {
    const tree = await client.tree(rootId);
    if (!tree) {
      io.stderr(`no run ${rootId} (unknown, or its jobs and audit trail are past retention)\n`);
      return EXIT.invalid;
    }
    // A rerun names its original, and an original its reruns (docs/operations.md#rerun-fork-and-replay); only when there are any.
    const links = await client.rerunLinks(rootId);
    const linked = { ...(links.rerun_of === null ? {} : { rerun_of: links.rerun_of }), ...(links.reruns.length === 0 ? {} : { reruns: links.reruns }) };
    io.stdout(options.json ? `${JSON.stringify({ ...tree, ...linked }, null, 2)}\n` : renderTree(tree, undefined, { debug: options.debug ?? false }) + linkLines(links));
    // Below the tree, or beside the JSON: a run no worker serves says so.
    for (const tier of await client.unservedTiers(tree)) (options.json ? io.stderr : io.stdout)(`${unservedNotice(tier)}\n`);
    return EXIT.ok;
  } finally {
    await client.close();
  }
}
