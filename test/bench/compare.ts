// Plain BullMQ against Tierflow on the same shape (root → 1 → 1 → 3 leaves, no work in the
// leaves), alternating halves, each on a private Redis so its INFO counters are its own; medians
// over the rounds. Tierflow traces (OTLP/HTTP protobuf, batched) to a local receiver. Then
// cancellation and first_success latency.
//   npm run build && node test/dist/bench/compare.js [sequential=200] [in-flight=1000] [rounds=2] [cancel-runs=20]
// Peak worker RSS with 10,000 roots in flight (Tierflow only; minutes, so not by default):
//   node test/dist/bench/compare.js --rss-10k [roots=10000]
import { startOtlpReceiver, tracingTo } from '../support/otlp-receiver.js';
import type { BenchHalf } from './bench-half.js';
import { startBullmqShape } from './bullmq-shape.js';
import { figuresTable } from './figures-table.js';
import { runCancelBench } from './cancel-latency.js';
import { measureHalf, WARM_UP_BATCHES, WARM_UP_ROOTS, type HalfFigures } from './measure.js';
import { runRssCheck } from './rss-check.js';
import { mb } from './rss.js';
import { median } from './shape.js';
import { startTierflowShape } from './tierflow-shape.js';

const args = process.argv.slice(2);
const rssMode = args[0] === '--rss-10k';
const numbers = (rssMode ? args.slice(1) : args).map(Number);

// The receiver stands in for Jaeger: it decodes between phases, not on the CPU being measured.
const receiver = await startOtlpReceiver({ decodeLater: true });
const tracing = tracingTo(receiver);

type Side = 'BullMQ' | 'Tierflow';

async function half(side: Side, sequential: number, inFlight: number): Promise<HalfFigures> {
  const target: BenchHalf = side === 'BullMQ' ? await startBullmqShape() : await startTierflowShape(tracing);
  try {
    const figures = await measureHalf(target, { warmUp: WARM_UP_ROOTS, warmUpBatches: WARM_UP_BATCHES, sequential, inFlight });
    receiver.decodePending();
    console.log(
      `${side.padEnd(9)} p50 ${figures.p50.toFixed(1)} ms, p99 ${figures.p99.toFixed(1)} ms, ${figures.rootsPerSecond.toFixed(0)} roots/s, ` +
        `${figures.commandsPerRoot.toFixed(0)} cmds/root, ${figures.cpuMicrosPerRoot.toFixed(0)} µs Redis CPU/root, ${figures.workerCpuMicrosPerRoot.toFixed(0)} µs worker CPU/root, ` +
        `worker RSS ${mb(figures.rss.sum).toFixed(0)} MB (max ${mb(figures.rss.max).toFixed(0)}, peak ${mb(figures.rss.peakMax).toFixed(0)}); ` +
        `warm-up batches ${figures.warmUpRootsPerSecond.map((rate) => rate.toFixed(0)).join(', ')} roots/s` +
        (side === 'Tierflow' ? `, ${receiver.spans.length} spans received` : ''),
    );
    return figures;
  } finally {
    await target.stop();
    // The receiver keeps every span; only the count matters here.
    receiver.spans.length = 0;
  }
}

try {
  if (rssMode) {
    for (const line of await runRssCheck(numbers[0] ?? 10_000, tracing)) console.log(line);
  } else {
    const [sequential = 200, inFlight = 1000, rounds = 2, cancelRuns = 20] = numbers;
    const started = performance.now();
    const results: Record<Side, HalfFigures[]> = { BullMQ: [], Tierflow: [] };
    for (let round = 0; round < rounds; round++) {
      for (const side of ['BullMQ', 'Tierflow'] as const) results[side].push(await half(side, sequential, inFlight));
    }
    const cancelLines = cancelRuns > 0 ? await runCancelBench(cancelRuns, tracing) : [];
    const took = ((performance.now() - started) / 1000).toFixed(0);
    console.log(`\nmedians of ${rounds} rounds; ${sequential} sequential roots, ${inFlight} in flight; Redis and RSS figures from the in-flight phase; whole run ${took} s`);
    for (const line of figuresTable(['BullMQ', 'Tierflow'], [results.BullMQ, results.Tierflow])) console.log(line);
    for (const line of cancelLines) console.log(`Tierflow ${line}`);
    const ratio = median(results.Tierflow.map((f) => f.rootsPerSecond)) / median(results.BullMQ.map((f) => f.rootsPerSecond));
    console.log(`tierflow/bullmq roots/s ratio: ${ratio.toFixed(2)}`);
  }
} finally {
  await receiver.close();
}
