import type { CliIo } from '../io.js';
import { main } from '../main.js';

/** Runs the CLI in this process with `argv` (and `stdin` as standard input), capturing what it writes. For tests; not built. */
export async function runMain(argv: readonly string[], stdin = ''): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { stdout: (text) => void (out += text), stderr: (text) => void (err += text), readStdin: () => Promise.resolve(stdin) };
  const code = await main(argv, io);
  return { code, out, err };
}
