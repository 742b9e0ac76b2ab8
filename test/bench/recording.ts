// What recording costs (docs/operations.md#recording): the four tiers with TIERFLOW_RECORD=none,
// metadata and full, each round starting all three in turn, in rotating order, on private Redis
// servers, with roots of the bench's shape (a plan of sim subtasks). Prints roots a second and
// Redis CPU per root as ratios to `none`, and the Redis memory a run's recording takes.
//   npm run build && node test/dist/bench/recording.js [rounds=3] [in-flight=1000] [sequential=100]
import { redisClient } from '@tierflow/testing';
import { figuresTable } from './figures-table.js';
import { measureHalf, WARM_UP_BATCHES, WARM_UP_ROOTS, type HalfFigures } from './measure.js';
import { startTierflowShape } from './tierflow-shape.js';

const [rounds = 3, inFlight = 1000, sequential = 100] = process.argv.slice(2).map(Number);
const MODES = ['none', 'metadata', 'full'] as const;
const results: HalfFigures[][] = MODES.map(() => []);
const bytesPerRoot: number[][] = MODES.map(() => []);

/** The recordings' memory (MEMORY USAGE of every `:record:` key) per recorded run; 0 with none. */
async function recordingBytesPerRoot(url: string): Promise<number> {
  const redis = redisClient(url);
  try {
    let keys = 0;
    let bytes = 0;
    for await (const batch of redis.scanStream({ match: '*:record:*', count: 1000 }) as AsyncIterable<string[]>) {
      for (const key of batch) {
        keys += 1;
        bytes += (await redis.memory('USAGE', key)) ?? 0;
      }
    }
    return keys === 0 ? 0 : bytes / keys;
  } finally {
    redis.disconnect();
  }
}

for (let round = 0; round < rounds; round++) {
  const order = MODES.map((_, index) => (index + round) % MODES.length);
  for (const index of order) {
    const mode = MODES[index]!;
    const half = await startTierflowShape({ TIERFLOW_RECORD: mode });
    try {
      const figures = await measureHalf(half, { warmUp: WARM_UP_ROOTS, warmUpBatches: WARM_UP_BATCHES, sequential, inFlight });
      results[index]!.push(figures);
      const bytes = await recordingBytesPerRoot(half.redisUrls[0]!);
      bytesPerRoot[index]!.push(bytes);
      console.log(
        `round ${round + 1} ${mode.padEnd(9)} ${figures.rootsPerSecond.toFixed(0)} roots/s, p50 ${figures.p50.toFixed(1)} ms, ` +
          `${figures.cpuMicrosPerRoot.toFixed(0)} µs Redis CPU/root, ${figures.workerCpuMicrosPerRoot.toFixed(0)} µs worker CPU/root, recording ${(bytes / 1024).toFixed(1)} KiB/root`,
      );
    } finally {
      await half.stop();
    }
  }
}
const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
console.log(`\nmedians of ${rounds} rounds; ${sequential} sequential roots, ${inFlight} in flight; ratios to none`);
// figuresTable puts its last column against the others: once for metadata, once for full.
for (const [index, mode] of [
  [1, 'metadata'],
  [2, 'full'],
] as const) {
  for (const line of figuresTable(['none', mode], [results[0]!, results[index]!])) console.log(line);
  console.log('');
}
console.log(`recording in Redis per root (6 nodes): ${MODES.map((mode, index) => `${mode} ${(median(bytesPerRoot[index]!) / 1024).toFixed(1)} KiB`).join(', ')}`);
