// Cancellation and first_success latency (see cancel-latency.ts).
//   npm run build && node test/dist/bench/cancel.js [runs=50]
import { runCancelBench } from './cancel-latency.js';

for (const line of await runCancelBench(Number(process.argv[2] ?? 50))) console.log(line);
