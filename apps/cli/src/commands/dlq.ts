import { resignForReplay } from '@tierflow/runtime/admin';
import { runtimeOptionsFromEnv, TierflowClient } from '@tierflow/runtime';
import { EXIT, parseJsonText, readInput, type CliIo } from '../io.js';

export interface DlqOptions {
  readonly file?: string;
  readonly sign?: boolean;
  /** purge: delete without asking. */
  readonly yes?: boolean;
  /** purge: asks a person yes or no (standard input and error on a terminal); null where there is no one to ask. */
  readonly confirm?: ((question: string) => Promise<boolean>) | null;
}

/**
 * `tierflow dlq list|show <id>|replay <id> [--file F] [--sign]|purge [--yes]`: the jobs a tier
 * refused, and their reasons. A purge deletes what an operator may still want to replay: it asks
 * on a terminal, and elsewhere needs --yes (exit 2 without it).
 */
export async function dlqCommand(action: string, id: string | undefined, options: DlqOptions, io: CliIo): Promise<number> {
  if (action === 'purge' && !options.yes && !options.confirm) {
    io.stderr('dlq purge deletes every dead letter: give --yes to confirm (standard input is not a terminal to ask on)\n');
    return EXIT.unusable;
  }
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
      case 'purge': {
        if (!options.yes && options.confirm) {
          const count = (await letters.list()).length;
          if (count === 0) {
            io.stdout('no dead letters\n');
            return EXIT.ok;
          }
          if (!(await options.confirm(`Delete all ${count} dead letter${count === 1 ? '' : 's'}? [y/N] `))) {
            io.stdout('nothing purged\n');
            return EXIT.invalid;
          }
        }
        io.stdout(`purged ${await letters.purge()} dead letters\n`);
        return EXIT.ok;
      }
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
