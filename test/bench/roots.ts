// Latency and throughput of whole roots through four worker processes on a private Redis,
// without tracing and with it (OTLP/HTTP protobuf, batched, to a local receiver), in one run.
//   npm run build && node test/dist/bench/roots.js [sequential=100] [in-flight=1000]
import { startDeployment } from '../support/deployment.js';
import { startOtlpReceiver } from '../support/otlp-receiver.js';
import { benchObjective as objective, percentile } from './shape.js';

const sequential = Number(process.argv[2] ?? 100);
const inFlight = Number(process.argv[3] ?? 1000);

interface Figures {
  readonly p50: number;
  readonly p99: number;
  readonly rootsPerSecond: number;
}

async function measure(label: string, env: NodeJS.ProcessEnv): Promise<Figures> {
  const deployment = await startDeployment(`bench-${label}`, { TIERFLOW_LOG: 'silent', ...env });
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
    const failed = outcomes.filter((outcome) => outcome.payload.status !== 'success').length;
    if (failed > 0) throw new Error(`${failed} roots did not succeed`);
    const figures = { p50: percentile(latencies, 50), p99: percentile(latencies, 99), rootsPerSecond: inFlight / seconds };
    console.log(
      `${label.padEnd(12)} single root (${sequential} sequential): p50 ${figures.p50.toFixed(1)} ms, p99 ${figures.p99.toFixed(1)} ms; ` +
        `${inFlight} in flight: ${figures.rootsPerSecond.toFixed(0)} roots/s`,
    );
    return figures;
  } finally {
    await deployment.stop();
  }
}

const receiver = await startOtlpReceiver();
try {
  const off = await measure('tracing off', { OTEL_TRACES_EXPORTER: 'none' });
  const on = await measure('tracing on', { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' });
  console.log(`spans received: ${receiver.spans.length}`);
  console.log(`tracing on/off roots/s ratio: ${(on.rootsPerSecond / off.rootsPerSecond).toFixed(2)}`);
} finally {
  await receiver.close();
}
