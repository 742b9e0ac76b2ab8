import { runtimeOptionsFromEnv, TierflowClient } from '@tierflow/runtime';
import { EXIT, type CliIo } from '../io.js';

/**
 * `tierflow result <root-id>`: the root's final outcome message while it is retained, so a
 * client that died while waiting can still collect it. Exit 0 on success, 1 otherwise or when
 * there is none (yet).
 */
export async function resultCommand(rootId: string, io: CliIo): Promise<number> {
  const client = await TierflowClient.connect(runtimeOptionsFromEnv());
  try {
    const outcome = await client.result(rootId);
    if (!outcome) {
      io.stderr(`no outcome for ${rootId} (still running, unknown, or no longer retained)\n`);
      return EXIT.invalid;
    }
    io.stdout(`${JSON.stringify(outcome, null, 2)}\n`);
    return outcome.payload.status === 'success' ? EXIT.ok : EXIT.invalid;
  } finally {
    await client.close();
  }
}
