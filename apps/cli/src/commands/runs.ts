import { runtimeOptionsFromEnv, TierflowClient, type RunStatus } from '@tierflow/runtime';
import { EXIT, type CliIo } from '../io.js';
import { renderRuns } from '../render-runs.js';

/** `tierflow runs [--status s] [--limit n] [--json] [--debug]`: recent and active runs, latest first. */
export async function runsCommand(options: { status?: RunStatus; limit?: number; json?: boolean; debug?: boolean }, io: CliIo): Promise<number> {
  const client = await TierflowClient.connect(runtimeOptionsFromEnv());
  try {
    const runs = await client.runs({ ...(options.status === undefined ? {} : { status: options.status }), ...(options.limit === undefined ? {} : { limit: options.limit }) });
    io.stdout(options.json ? `${JSON.stringify(runs, null, 2)}\n` : renderRuns(runs, Date.now(), { debug: options.debug ?? false }));
    return EXIT.ok;
  } finally {
    await client.close();
  }
}
