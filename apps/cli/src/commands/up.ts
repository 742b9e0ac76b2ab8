import { EXIT, type CliIo } from '../io.js';
import { spawnTiers } from '../spawn-tiers.js';

/** `tierflow up`: the four tier workers as four processes, their output prefixed by tier. */
export async function upCommand(io: CliIo): Promise<number> {
  const tiers = spawnTiers(process.env, (tier, line) => io.stdout(`${tier.padEnd(10)} | ${line}\n`));
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    void tiers.stop();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // One worker dying takes the others down: a partial deployment would only queue work up.
  for (const [tier, child] of tiers.children) {
    child.once('exit', (code) => {
      if (!stopping) io.stderr(`${tier} worker exited (${code ?? 'signal'}); stopping the others\n`);
      stop();
    });
  }
  await tiers.exited;
  return [...tiers.children.values()].every((child) => child.exitCode === 0) ? EXIT.ok : EXIT.invalid;
}
