import { isTierflowError } from '@tierflow/protocol';
import { runtimeOptionsFromEnv, TierflowClient } from '@tierflow/runtime';
import { EXIT, type CliIo } from '../io.js';

/**
 * `tierflow unblock <root-or-node-id> [--note <text>]`: lifts the blockers of a run that waits on
 * blocked work (status `blocked`): every one still on when given the root, else those reported at
 * or below the node. The run goes on once none is left on, each delegation sent again carrying the
 * note. A run not blocked, a node with no open blocker or a note too long: exit 2.
 */
export async function unblockCommand(id: string, options: { note?: string }, io: CliIo): Promise<number> {
  const client = await TierflowClient.connect(runtimeOptionsFromEnv());
  try {
    const report = await client.unblock(id, options.note === undefined ? {} : { note: options.note });
    const lifted = `unblocked ${report.unblocked.length} blocker${report.unblocked.length === 1 ? '' : 's'} (${report.unblocked.join(', ')})`;
    io.stdout(report.resumed ? `${lifted}; run ${report.rootId} goes on\n` : `${lifted}; ${report.open} still blocked: the run goes on once they are unblocked\n`);
    return EXIT.ok;
  } catch (error) {
    if (!isTierflowError(error)) throw error;
    io.stderr(`${error.message} [${error.code}]\n`);
    return EXIT.unusable;
  } finally {
    await client.close();
  }
}
