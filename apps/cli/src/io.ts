import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline/promises';
import { tooManyBytes, type InputLimits } from '@tierflow/runtime/admin';
import { readFileWithin, readLimited } from './read-limited.js';

/** Where a command reads and writes; tests pass their own. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Standard input as UTF-8; null once it is more than `maxBytes` long. */
  readonly readStdin: (maxBytes?: number) => Promise<string | null>;
}

export const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readStdin: (maxBytes = Number.POSITIVE_INFINITY) => readLimited(process.stdin, maxBytes),
};

/** Exit codes shared by the commands: 3 when Redis cannot be used (down, unknown host, TLS or password wrong). */
export const EXIT = { ok: 0, invalid: 1, unusable: 2, unreachable: 3 } as const;

/**
 * Reads a file, or standard input for `-`; with `limits`, no more than `limits.maxObjectiveBytes`.
 *
 * @throws InputTooLargeError (code `input_too_large`) past the limit.
 */
export async function readInput(source: string, io: CliIo, limits?: InputLimits): Promise<string> {
  if (source !== '-') return limits ? readFileWithin(source, limits) : readFile(source, 'utf8');
  const text = await io.readStdin(limits?.maxObjectiveBytes);
  if (text === null) throw tooManyBytes('<stdin>', null, limits!);
  return text;
}

export type ParsedJson = { ok: true; value: unknown } | { ok: false; reason: string };

export function parseJsonText(text: string): ParsedJson {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, reason: `not JSON: ${(error as Error).message}` };
  }
}

/**
 * A yes-or-no question put to the person at the terminal (asked on standard error, so standard
 * output stays clean), answered yes only by `y` or `yes`; null when standard input or error is not
 * a terminal, where there is no one to ask.
 */
export function terminalConfirm(): ((question: string) => Promise<boolean>) | null {
  if (!process.stdin.isTTY || !process.stderr.isTTY) return null;
  return async (question) => {
    const reader = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return /^y(es)?$/i.test((await reader.question(question)).trim());
    } finally {
      reader.close();
    }
  };
}
