import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { TierflowClient } from '@tierflow/runtime';
import { unknownRunMessage } from '../runs/run-view.js';

/** The address of a run's outcome. */
export function outcomeUri(rootId: string): string {
  return `tierflow://runs/${encodeURIComponent(rootId)}/outcome`;
}

/** How many finished runs the resource list offers: the latest, as a client's picker shows them. */
const LISTED_OUTCOMES = 20;

/** A run's final outcome message as a JSON resource, and the latest finished runs' outcomes as its list. */
export function registerOutcomeResource(server: McpServer, client: TierflowClient): void {
  const template = new ResourceTemplate('tierflow://runs/{root_id}/outcome', {
    list: async () => {
      const page = await client.findRuns({ limit: LISTED_OUTCOMES * 2 });
      const finished = page.runs.filter((run) => run.finished_at !== null).slice(0, LISTED_OUTCOMES);
      return { resources: finished.map((run) => ({ uri: outcomeUri(run.root_id), name: `outcome of ${run.root_id}`, description: run.objective, mimeType: 'application/json' })) };
    },
  });
  server.registerResource(
    'run_outcome',
    template,
    { title: 'A run’s outcome', description: 'The final outcome message of a finished run, as `tierflow result --json` prints it.', mimeType: 'application/json' },
    async (uri, variables) => {
      const id = decodeURIComponent(String(variables.root_id));
      const outcome = await client.result(id);
      if (outcome === null) {
        // Not found and not yet finished read differently: a client polling for it knows which to wait for.
        const message = (await client.tree(id)) === null ? unknownRunMessage(id) : `run ${id} has no outcome yet: it is still going (run_status says how far)`;
        throw new McpError(ErrorCode.InvalidParams, message);
      }
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(outcome, null, 2) }] };
    },
  );
}
