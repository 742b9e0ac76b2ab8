import { runtimeOptionsFromEnv, TierflowClient } from '@tierflow/runtime';
import { EXIT, type CliIo } from '../io.js';

export interface CancelCommandOptions {
  readonly reason?: string;
  /** commander's `--no-cascade` sets this false. */
  readonly cascade?: boolean;
}

/** `tierflow cancel <message-id> [--reason TEXT] [--no-cascade]`. */
export async function cancelCommand(messageId: string, options: CancelCommandOptions, io: CliIo): Promise<number> {
  const client = await TierflowClient.connect(runtimeOptionsFromEnv());
  try {
    const report = await client.cancel(messageId, { ...(options.reason ? { reason: options.reason } : {}), cascade: options.cascade ?? true });
    switch (report.outcome) {
      case 'unknown':
        io.stderr(`no message ${messageId} (unknown, or no longer retained)\n`);
        return EXIT.invalid;
      case 'finished':
        io.stdout(`${messageId} already finished (${report.state}): nothing to cancel\n`);
        return EXIT.ok;
      case 'cancelled':
        io.stdout(`cancelling ${messageId} (${report.tier})${report.nodes.length > 1 ? ` and ${report.nodes.length - 1} unfinished descendants` : ''}\n`);
        return EXIT.ok;
    }
  } finally {
    await client.close();
  }
}
