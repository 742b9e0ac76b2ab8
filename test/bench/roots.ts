// Latency and throughput of whole roots through four worker processes on a private Redis,
// without tracing and with it (OTLP/HTTP protobuf, batched, to a local receiver), in one run.
//   npm run build && node test/dist/bench/roots.js [sequential=100] [in-flight=1000]
import { startOtlpReceiver, tracingTo } from '../support/otlp-receiver.js';
import { measureTierflow, WARM_UP_BATCHES, WARM_UP_ROOTS, type MeasureOptions } from './measure.js';
import { startTierflowShape } from './tierflow-shape.js';

const options: MeasureOptions = { warmUp: WARM_UP_ROOTS, warmUpBatches: WARM_UP_BATCHES, sequential: Number(process.argv[2] ?? 100), inFlight: Number(process.argv[3] ?? 1000) };

const receiver = await startOtlpReceiver({ decodeLater: true });
try {
  const off = await measureTierflow('tracing off', { OTEL_TRACES_EXPORTER: 'none' }, options, startTierflowShape);
  const tracing = tracingTo(receiver);
  const on = await measureTierflow('tracing on', tracing, options, startTierflowShape);
  receiver.decodePending();
  console.log(`spans received: ${receiver.spans.length}`);
  console.log(`tracing on/off roots/s ratio: ${(on.rootsPerSecond / off.rootsPerSecond).toFixed(2)}`);
} finally {
  await receiver.close();
}
