import { unservedNotice } from '@tierflow/runtime/admin';
import type { TierflowClient } from '@tierflow/runtime';

/** A run as GET /api/runs/{id} and the MCP tools read it: its tree, its outcome once it has one, its trace and its reruns. */
export async function readRun(client: TierflowClient, id: string, jaegerUrl: string | null) {
  const [tree, outcome, trace, links] = await Promise.all([client.tree(id), client.result(id), client.runTrace(id), client.rerunLinks(id)]);
  if (!tree) return null;
  const unserved = (await client.unservedTiers(tree)).map(unservedNotice);
  const traceUrl = trace?.exported && jaegerUrl !== null ? `${jaegerUrl.replace(/\/$/, '')}/trace/${trace.traceId}` : null;
  return { run: tree, outcome, trace_url: traceUrl, unserved, rerun_of: links.rerun_of, reruns: [...links.reruns] };
}

export type RunView = NonNullable<Awaited<ReturnType<typeof readRun>>>;

/** What every reader of runs says of an id it does not find. */
export function unknownRunMessage(id: string): string {
  return `no run ${id} (unknown, or past retention)`;
}
