import type { TierSlug } from '@tierflow/protocol';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ALL_TIERS } from './tiers.js';

const BIN = fileURLToPath(new URL('../bin/tierflow.js', import.meta.url));

/**
 * A busy worker's RSS is mostly garbage not yet collected, so V8 is asked to keep less of it: the
 * old generation grown by 30 % at a time rather than by a factor V8 picks (up to 4). The young
 * generation is given 16 MB per semi-space: with 4 MB, fewer short-lived objects died before a
 * collection and workers spent about a tenth more CPU, for about 25 MB less each. With both, a
 * worker peaks at about 145 MB with 10,000 roots in flight instead of about 220
 * (test/bench/RESULTS.md). A NODE_OPTIONS that sets the semi-space size wins; the growing
 * percentage cannot be set there.
 */
export const WORKER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=16', '--heap-growing-percent=30'];

function workerFlags(env: NodeJS.ProcessEnv): readonly string[] {
  const own = env.NODE_OPTIONS ?? '';
  return WORKER_NODE_FLAGS.filter((flag) => !own.includes(flag.slice(0, flag.indexOf('='))));
}

export interface TierProcesses {
  readonly children: ReadonlyMap<TierSlug, ChildProcess>;
  /** Resolves when every process has exited. */
  readonly exited: Promise<void>;
  /** SIGTERM to every process; resolves when all have exited. */
  stop(): Promise<void>;
}

/** Starts each tier as its own `tierflow worker <tier>` process; `onLine` gets each output line with its tier. */
export function spawnTiers(env: NodeJS.ProcessEnv, onLine: (tier: TierSlug, line: string) => void, tiers: readonly TierSlug[] = ALL_TIERS): TierProcesses {
  const children = new Map<TierSlug, ChildProcess>();
  const exits: Promise<void>[] = [];
  for (const tier of tiers) {
    // An IPC channel: the worker beats over it, and ends when it closes (parent-link.ts).
    const child = spawn(process.execPath, [...workerFlags(env), BIN, 'worker', tier], { env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    for (const stream of [child.stdout!, child.stderr!]) createInterface({ input: stream }).on('line', (line) => onLine(tier, line));
    exits.push(new Promise((resolve) => child.once('exit', () => resolve())));
    children.set(tier, child);
  }
  const exited = Promise.all(exits).then(() => undefined);
  return {
    children,
    exited,
    stop: async () => {
      for (const child of children.values()) if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
