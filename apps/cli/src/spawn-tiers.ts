import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { TierSlug } from '@tierflow/runtime';
import { TIER_SLUGS } from './tiers.js';

const BIN = fileURLToPath(new URL('../bin/tierflow.js', import.meta.url));

export interface TierProcesses {
  readonly children: ReadonlyMap<TierSlug, ChildProcess>;
  /** Resolves when every process has exited. */
  readonly exited: Promise<void>;
  /** SIGTERM to every process; resolves when all have exited. */
  stop(): Promise<void>;
}

/** Starts each tier as its own `tierflow worker <tier>` process; `onLine` gets each output line with its tier. */
export function spawnTiers(
  env: NodeJS.ProcessEnv,
  onLine: (tier: TierSlug, line: string) => void,
  tiers: readonly TierSlug[] = TIER_SLUGS,
): TierProcesses {
  const children = new Map<TierSlug, ChildProcess>();
  const exits: Promise<void>[] = [];
  for (const tier of tiers) {
    const child = spawn(process.execPath, [BIN, 'worker', tier], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [child.stdout, child.stderr]) createInterface({ input: stream }).on('line', (line) => onLine(tier, line));
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
