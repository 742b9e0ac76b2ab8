// Two builds of Tierflow in one run: this checkout's and another's (a clone at an earlier commit,
// built), each round starting both in turn, in alternating order, on private Redis servers and
// tracing to the same receiver. The machine's speed drifts by a third between runs, more than most
// single changes gain; within a run, round by round, the two builds see the same machine.
//   npm run build && node test/dist/bench/ab.js <other-checkout> [rounds=4] [in-flight=1000] [sequential=100]
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TierflowBuild } from '../support/deployment.js';
import { startOtlpReceiver, tracingTo } from '../support/otlp-receiver.js';
import { figuresTable } from './figures-table.js';
import { measureHalf, WARM_UP_BATCHES, WARM_UP_ROOTS, type HalfFigures } from './measure.js';
import { benchObjective } from './shape.js';
import { startTierflowShape } from './tierflow-shape.js';

const [otherRoot, ...rest] = process.argv.slice(2);
if (!otherRoot) {
  console.error('usage: node test/dist/bench/ab.js <other-checkout> [rounds=4] [in-flight=1000] [sequential=100]');
  process.exit(2);
}
const [rounds = 4, inFlight = 1000, sequential = 100] = rest.map(Number);

/** A checkout's build, loaded from its own packages: its tier processes and its client. */
async function loadBuild(root: string): Promise<TierflowBuild> {
  const load = (path: string): Promise<Record<string, unknown>> => import(pathToFileURL(join(root, path)).href) as Promise<Record<string, unknown>>;
  const [cli, runtime] = await Promise.all([load('apps/cli/dist/index.js'), load('packages/runtime/dist/index.js')]);
  return { spawnTiers: cli.spawnTiers, TierflowClient: runtime.TierflowClient, runtimeOptionsFromEnv: runtime.runtimeOptionsFromEnv } as TierflowBuild;
}

const commitOf = (root: string): string => execFileSync('git', ['-C', root, 'log', '-1', '--format=%h'], { encoding: 'utf8' }).trim();

const here = resolve(import.meta.dirname, '..', '..');
const builds = [
  { name: `this ${commitOf(here)}`, build: undefined },
  { name: `other ${commitOf(otherRoot)}`, build: await loadBuild(resolve(otherRoot)) },
] as const;
const receiver = await startOtlpReceiver({ decodeLater: true });
const tracing = tracingTo(receiver);
const results: HalfFigures[][] = [[], []];
try {
  for (let round = 0; round < rounds; round++) {
    for (const index of round % 2 === 0 ? [0, 1] : [1, 0]) {
      const { name, build } = builds[index]!;
      const half = await startTierflowShape(tracing, benchObjective, {}, build);
      try {
        const figures = await measureHalf(half, { warmUp: WARM_UP_ROOTS, warmUpBatches: WARM_UP_BATCHES, sequential, inFlight });
        receiver.decodePending();
        results[index]!.push(figures);
        console.log(
          `round ${round + 1} ${name.padEnd(14)} ${figures.rootsPerSecond.toFixed(0)} roots/s, p50 ${figures.p50.toFixed(1)} ms, p99 ${figures.p99.toFixed(1)} ms, ` +
            `${figures.cpuMicrosPerRoot.toFixed(0)} µs Redis CPU/root, ${figures.workerCpuMicrosPerRoot.toFixed(0)} µs worker CPU/root`,
        );
      } finally {
        await half.stop();
      }
    }
  }
  console.log(`\nmedians of ${rounds} rounds; ${sequential} sequential roots, ${inFlight} in flight`);
  for (const line of figuresTable(['other', 'this'], [results[1]!, results[0]!])) console.log(line);
} finally {
  await receiver.close();
}
