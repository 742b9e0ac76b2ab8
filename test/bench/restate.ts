// Tierflow against a durable-execution engine, Restate, and the plain-BullMQ floor, on the same
// shape (root → 1 → 1 → 3 leaves, no work in the leaves), the three halves in turn each round,
// each warmed up as compare.ts does; medians over the rounds. Tierflow traces every hop to a local
// receiver; Restate runs with its defaults (its journal on local storage, no tracing); BullMQ's and
// Tierflow's Redis keep an append-only file synced every second, as a durable deployment would. A root is
// one call of the Monitor's service at Restate's ingress, answered when the tree has run.
//   npm run build && node test/dist/bench/restate.js [sequential=100] [in-flight=1000] [rounds=2]
// The Restate server (80 MB) is installed on first use under node_modules/.cache, or taken from
// RESTATE_SERVER_BIN.
import { startOtlpReceiver, tracingTo } from '../support/otlp-receiver.js';
import type { BenchHalf } from './bench-half.js';
import { startBullmqShape } from './bullmq-shape.js';
import { figuresTable, type FigureRow } from './figures-table.js';
import { measureHalf, WARM_UP_BATCHES, WARM_UP_ROOTS, type HalfFigures } from './measure.js';
import { startRestateShape } from './restate-shape.js';
import { mb } from './rss.js';
import { median } from './shape.js';
import { startTierflowShape } from './tierflow-shape.js';

const [sequential = 100, inFlight = 1000, rounds = 2] = process.argv.slice(2).map(Number);

/** What every engine has: the broker is Redis for BullMQ and Tierflow, the Restate server for Restate. */
const ROWS: readonly FigureRow[] = [
  ['roots/s', (f) => f.rootsPerSecond, 0],
  ['single p50 (ms)', (f) => f.p50, 1],
  ['single p99 (ms)', (f) => f.p99, 1],
  ['broker CPU µs/root', (f) => f.cpuMicrosPerRoot, 0],
  ['worker CPU µs/root', (f) => f.workerCpuMicrosPerRoot, 0],
  ['bench process CPU µs/root', (f) => f.driverCpuMicrosPerRoot, 0],
  ['all CPU µs/root', (f) => f.cpuMicrosPerRoot + f.workerCpuMicrosPerRoot + f.driverCpuMicrosPerRoot, 0],
  ['worker RSS max (MB)', (f) => mb(f.rss.max), 0],
];

const SIDES = ['BullMQ', 'Restate', 'Tierflow'] as const;
type Side = (typeof SIDES)[number];

const receiver = await startOtlpReceiver({ decodeLater: true });
const tracing = tracingTo(receiver);
/** Redis as a deployment that must not lose an acknowledged root runs it: every write in the append-only file, synced each second. */
const durable = { appendOnly: true, args: ['--appendfsync', 'everysec'] };
const starts: Record<Side, () => Promise<BenchHalf>> = {
  BullMQ: () => startBullmqShape({}, durable),
  Restate: startRestateShape,
  Tierflow: () => startTierflowShape(tracing, undefined, { redis: durable }),
};

try {
  const started = performance.now();
  const results: Record<Side, HalfFigures[]> = { BullMQ: [], Restate: [], Tierflow: [] };
  for (let round = 0; round < rounds; round++) {
    // Each side goes first in turn, so none always meets the machine at the same moment of a round.
    const order = SIDES.map((_, index) => SIDES[(index + round) % SIDES.length]!);
    for (const side of order) {
      const half = await starts[side]();
      try {
        const figures = await measureHalf(half, { warmUp: WARM_UP_ROOTS, warmUpBatches: WARM_UP_BATCHES, sequential, inFlight });
        receiver.decodePending();
        receiver.spans.length = 0;
        results[side].push(figures);
        console.log(
          `round ${round + 1} ${side.padEnd(9)} ${figures.rootsPerSecond.toFixed(0)} roots/s, p50 ${figures.p50.toFixed(1)} ms, p99 ${figures.p99.toFixed(1)} ms, ` +
            `broker ${figures.cpuMicrosPerRoot.toFixed(0)} µs/root, workers ${figures.workerCpuMicrosPerRoot.toFixed(0)} µs/root; ` +
            `warm-up batches ${figures.warmUpRootsPerSecond.map((rate) => rate.toFixed(0)).join(', ')} roots/s`,
        );
      } finally {
        await half.stop();
      }
    }
  }
  const took = ((performance.now() - started) / 1000).toFixed(0);
  console.log(`\nmedians of ${rounds} rounds; ${sequential} sequential roots, ${inFlight} in flight; whole run ${took} s`);
  for (const line of figuresTable(SIDES, [results.BullMQ, results.Restate, results.Tierflow], ROWS)) console.log(line);
  const rate = (side: Side): number => median(results[side].map((f) => f.rootsPerSecond));
  console.log(`tierflow/bullmq roots/s ratio: ${(rate('Tierflow') / rate('BullMQ')).toFixed(2)}`);
  console.log(`tierflow/restate roots/s ratio: ${(rate('Tierflow') / rate('Restate')).toFixed(2)}`);
} finally {
  await receiver.close();
}
