import { runtimeOptionsFromEnv, TierflowClient, type WorkerBeat } from '@tierflow/runtime';
import { EXIT, type CliIo } from '../io.js';
import { renderWorkers } from '../render-workers.js';

/** `tierflow workers [--json]`: the live worker processes, from the heartbeats they write. */
export async function workersCommand(options: { json?: boolean }, io: CliIo): Promise<number> {
  const client = await TierflowClient.connect(runtimeOptionsFromEnv());
  try {
    const workers: WorkerBeat[] = await client.workers();
    io.stdout(options.json ? `${JSON.stringify(workers, null, 2)}\n` : renderWorkers(workers, Date.now()));
    return EXIT.ok;
  } finally {
    await client.close();
  }
}
