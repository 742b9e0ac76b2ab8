import { currentKeys, generateKeySet, PARTIES, readKeySetFile, retireKey, rotateKey, readTierflowVars, SIGNING_ENV, type Party, type PublicKeyEntry } from '@tierflow/runtime/admin';
import { EXIT, type CliIo } from '../io.js';

export interface KeysOptions {
  readonly dir?: string;
}

/**
 * `tierflow keys generate | rotate <party> | retire <key-id> | list`: a deployment's signing keys,
 * one Ed25519 key pair per tier and for the client, in a directory (--dir, else TIERFLOW_KEYS_DIR).
 */
export function keysCommand(action: string, argument: string | undefined, options: KeysOptions, io: CliIo, env: NodeJS.ProcessEnv = process.env): number {
  const dir = options.dir ?? readTierflowVars(env, [SIGNING_ENV.keysDir])[SIGNING_ENV.keysDir];
  if (!dir) {
    io.stderr(`keys: name the key directory with --dir or ${SIGNING_ENV.keysDir}\n`);
    return EXIT.unusable;
  }
  switch (action) {
    case 'generate': {
      const keys = generateKeySet(dir);
      io.stdout(`created a key set in ${dir}:\n${keys.map((key) => `  ${key.key_id}  ${key.party}\n`).join('')}`);
      io.stdout(`each machine needs ${dir}/public-keys.json and the .key file of the party it runs as (a tier, or client)\n`);
      return EXIT.ok;
    }
    case 'rotate': {
      if (!isParty(argument)) return usage(`rotate needs a party: ${PARTIES.join(', ')}`, io);
      const key = rotateKey(dir, argument);
      io.stdout(`${argument} now signs with ${key.key_id} (from processes started from now); its earlier keys are still accepted until retired\n`);
      return EXIT.ok;
    }
    case 'retire': {
      if (!argument) return usage('retire needs a key id (see `tierflow keys list`)', io);
      const key = retireKey(dir, argument);
      io.stdout(`retired ${key.key_id} of ${key.party}: what it signed is refused from now\n`);
      return EXIT.ok;
    }
    case 'list': {
      const set = readKeySetFile(dir);
      const current = new Set([...currentKeys(set).values()]);
      for (const key of set.keys) io.stdout(`${describe(key, current.has(key))}\n`);
      return EXIT.ok;
    }
    default:
      return usage(`unknown action "${action}"; use generate, rotate <party>, retire <key-id> or list`, io);
  }
}

function describe(key: PublicKeyEntry, current: boolean): string {
  return `${key.key_id.padEnd(24)}  ${key.party.padEnd(10)}  ${key.created_at}  ${current ? 'current' : 'accepted'}`;
}

function isParty(value: string | undefined): value is Party {
  return (PARTIES as readonly string[]).includes(value ?? '');
}

function usage(message: string, io: CliIo): number {
  io.stderr(`keys: ${message}\n`);
  return EXIT.unusable;
}
