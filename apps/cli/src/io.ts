import { readFile } from 'node:fs/promises';

/** Where a command reads and writes; tests pass their own. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly readStdin: () => Promise<string>;
}

export const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
};

/** Exit codes shared by the commands. */
export const EXIT = { ok: 0, invalid: 1, unusable: 2 } as const;

/** Reads a file, or standard input for `-`. */
export async function readInput(source: string, io: CliIo): Promise<string> {
  return source === '-' ? io.readStdin() : readFile(source, 'utf8');
}

export type ParsedJson = { ok: true; value: unknown } | { ok: false; reason: string };

export function parseJsonText(text: string): ParsedJson {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, reason: `not JSON: ${(error as Error).message}` };
  }
}
