import { RUN_STATUSES, runtimeOptionsFromEnv, TierflowClient } from '@tierflow/runtime';
import { EXIT, type CliIo } from '../io.js';
import { renderRuns } from '../render-runs.js';

/** `tierflow runs [--status s] [--limit n] [--json]`: recent and active runs, latest first; an unknown status is refused, exit 2. */
export async function runsCommand(options: { status?: string; limit?: number; json?: boolean }, io: CliIo): Promise<number> {
  // A misspelt status would otherwise list nothing, as if there were no such runs.
  if (options.status !== undefined && !RUN_STATUSES.includes(options.status)) {
    io.stderr(`unknown status "${options.status}"; the statuses are: ${RUN_STATUSES.join(', ')}\n`);
    return EXIT.unusable;
  }
  const client = new TierflowClient(runtimeOptionsFromEnv());
  try {
    const runs = await client.runs({ ...(options.status === undefined ? {} : { status: options.status }), ...(options.limit === undefined ? {} : { limit: options.limit }) });
    io.stdout(options.json ? `${JSON.stringify(runs, null, 2)}\n` : renderRuns(runs, Date.now()));
    return EXIT.ok;
  } finally {
    await client.close();
  }
}
