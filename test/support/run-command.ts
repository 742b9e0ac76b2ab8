import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from '@tierflow/testing';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = join(ROOT, 'apps', 'cli', 'bin', 'tierflow.js');
export const FLEET_MAIN = join(ROOT, 'apps', 'fleet', 'dist', 'main.js');
/** Nothing listens on the discard port: a command that got as far as connecting would wait there. */
export const CLOSED_REDIS_URL = 'redis://127.0.0.1:9';

export interface CommandRun {
  /** The exit status, or null for a command still running when it was killed. */
  readonly status: number | null;
  /** Its standard output and standard error, as they came. */
  readonly output: string;
}

/**
 * Runs a script (the `tierflow` command unless told) in a process group of its own, with
 * CLOSED_REDIS_URL unless `env` says otherwise, until it exits, or until `enough` says its output
 * shows what the test needs, or for 15 s; then kills the group, so nothing it started lives on.
 */
export async function runCommand(args: readonly string[], env: NodeJS.ProcessEnv, options: { readonly script?: string; readonly enough?: (output: string) => boolean } = {}): Promise<CommandRun> {
  const enough = options.enough ?? (() => false);
  const child = spawn(process.execPath, [options.script ?? BIN, ...args], {
    env: { ...process.env, OTEL_TRACES_EXPORTER: 'none', TIERFLOW_LOG: '', REDIS_URL: CLOSED_REDIS_URL, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  let status: number | null;
  try {
    await waitFor(() => child.exitCode !== null || enough(output), { timeoutMs: 15_000, description: 'the command to stop' }).catch(() => undefined);
    status = child.exitCode;
  } finally {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // The group is gone already.
    }
    await closed;
  }
  return { status, output };
}
