// Latency and throughput of whole roots through four worker processes on a private Redis.
//   npm run build && node test/dist/bench/roots.js [sequential=100] [in-flight=1000]
import type { ObjectiveFile } from '@tierflow/runtime';
import { startDeployment } from '../support/deployment.js';

const sequential = Number(process.argv[2] ?? 100);
const inFlight = Number(process.argv[3] ?? 1000);

// The shape the benchmarks share: sim at delay 0, fan-out 3 at the Dispatcher, all_success.
const objective: ObjectiveFile = {
  objective: 'bench',
  task_data: {
    plan: {
      strategy: 'all_success',
      subtasks: [1, 2, 3].map((index) => ({ objective: `subtask ${index}`, task_data: { sim: { delay_ms: 0 } } })),
    },
  },
};

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const deployment = await startDeployment('bench-roots', { TIERFLOW_LOG: 'silent' });
try {
  const { client } = deployment;
  // Warm up connections and script caches.
  for (let i = 0; i < 10; i++) await client.waitForResult(await client.enqueue(objective), { timeoutMs: 30_000 });

  const latencies: number[] = [];
  for (let i = 0; i < sequential; i++) {
    const started = performance.now();
    await client.waitForResult(await client.enqueue(objective), { timeoutMs: 30_000 });
    latencies.push(performance.now() - started);
  }
  latencies.sort((a, b) => a - b);

  const started = performance.now();
  const ids = await Promise.all(Array.from({ length: inFlight }, () => client.enqueue(objective)));
  const outcomes = await Promise.all(ids.map((id) => client.waitForResult(id, { timeoutMs: 300_000 })));
  const seconds = (performance.now() - started) / 1000;
  const succeeded = outcomes.filter((outcome) => outcome.payload.status === 'success').length;

  console.log(`single root, ${sequential} sequential: p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms`);
  console.log(`${inFlight} roots in flight: ${(inFlight / seconds).toFixed(0)} roots/s (${seconds.toFixed(2)} s, ${succeeded} succeeded)`);
} finally {
  await deployment.stop();
}
