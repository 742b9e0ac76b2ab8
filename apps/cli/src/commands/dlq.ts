import { resignForReplay, runtimeOptionsFromEnv, TierflowClient } from '@tierflow/runtime';
import { EXIT, parseJsonText, readInput, type CliIo } from '../io.js';

/** `tierflow dlq list|show <id>|replay <id> [--file F] [--sign]|purge`: the jobs a tier refused, and their reasons. */
export async function dlqCommand(action: string, id: string | undefined, options: { file?: string; sign?: boolean }, io: CliIo): Promise<number> {
  const runtime = runtimeOptionsFromEnv();
  if (options.sign && !runtime.signing) {
    io.stderr('--sign needs TIERFLOW_KEYS_DIR: the key set, with the private key of the party the letter comes from\n');
    return EXIT.unusable;
  }
  const client = await TierflowClient.connect(runtime);
  const letters = client.deadLetters();
  try {
    switch (action) {
      case 'list': {
        const all = await letters.list();
        if (all.length === 0) io.stdout('no dead letters\n');
        for (const letter of all) io.stdout(`${letter.id}  ${letter.queue}  ${letter.rejected_at}  ${letter.reason}\n`);
        return EXIT.ok;
      }
      case 'show': {
        const letter = id ? await letters.get(id) : null;
        if (!letter) return missing(id, io);
        io.stdout(`${JSON.stringify(letter, null, 2)}\n`);
        return EXIT.ok;
      }
      case 'replay': {
        if (!id) return missing(id, io);
        let data: unknown;
        if (options.file) {
          const parsed = parseJsonText(await readInput(options.file, io));
          if (!parsed.ok) {
            io.stderr(`${options.file}: ${parsed.reason}\n`);
            return EXIT.unusable;
          }
          data = parsed.value;
        }
        if (options.sign && runtime.signing) {
          // A deployment that signs refuses an unsigned message, or one signed long ago.
          const letter = data === undefined ? await letters.get(id) : null;
          if (data === undefined && !letter) return missing(id, io);
          data = resignForReplay(data ?? letter?.data, runtime.signing, Date.now());
        }
        const replayed = await letters.replay(id, data);
        if (!replayed) return missing(id, io);
        io.stdout(`replayed ${id} onto ${replayed.queue} as ${replayed.jobId}\n`);
        return EXIT.ok;
      }
      case 'purge':
        io.stdout(`purged ${await letters.purge()} dead letters\n`);
        return EXIT.ok;
      default:
        io.stderr(`unknown action "${action}"; use list, show <id>, replay <id> [--file F] or purge\n`);
        return EXIT.unusable;
    }
  } finally {
    await letters.close();
    await client.close();
  }
}

function missing(id: string | undefined, io: CliIo): number {
  io.stderr(id ? `no dead letter ${id}\n` : 'which dead letter? give its id (see tierflow dlq list)\n');
  return EXIT.invalid;
}
