import { runtimeOptionsFromEnv } from '@tierflow/runtime';
import { EXIT, type CliIo } from '../io.js';
import { superviseTiers } from '../supervise-tiers.js';
import { ALL_TIERS } from '../tiers.js';

/**
 * `tierflow up`: the four tier workers as four processes, their output prefixed by tier. A worker
 * that exits on its own is restarted with back-off; SIGINT or SIGTERM stops them all cleanly.
 * Exits 2 when a worker cannot run as configured.
 */
export async function upCommand(io: CliIo): Promise<number> {
  // Each worker would refuse a bad environment and exit 2: say so once, and start none.
  for (const tier of ALL_TIERS) runtimeOptionsFromEnv(process.env, { tier });
  const tiers = superviseTiers(process.env, {
    line: (tier, line) => io.stdout(`${tier.padEnd(10)} | ${line}\n`),
    note: (text) => io.stderr(`up: ${text}`),
  });
  const stop = (): void => tiers.stop();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const code = await tiers.done;
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
  return code === 0 ? EXIT.ok : code === 2 ? EXIT.unusable : EXIT.invalid;
}
