// Where the workers' CPU goes on the bench shape (tracing on, roots in flight at once): an
// inspector CPU profile in each of the four worker processes, taken after the warm-up, and each
// sample charged to the package that owns its frame (self time). With --llm the leaves are LLM
// specialists answered by a model server in this process (bench/llm-hop.ts).
// With --callers <owner> (zod, @opentelemetry/sdk-trace, …) it also names the Tierflow code that
// spends that owner's samples.
//   npm run build && node test/dist/bench/profile.js [--llm] [--callers owner] [in-flight=1000] [functions=25]
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import type { Profiler } from 'node:inspector';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FakeOpenAiServer, waitFor } from '@tierflow/testing';
import { startOtlpReceiver, tracingTo } from '../support/otlp-receiver.js';
import { runInFlight, warmUp, WARM_UP_BATCHES, WARM_UP_ROOTS } from './measure.js';
import { totalCpuMicros } from './process-cpu.js';
import { callerShares, profileShares, type Share } from './profile-owners.js';
import { LLM_BENCH_MODEL, llmObjective } from './llm-shape.js';
import { startTierflowShape } from './tierflow-shape.js';

const args = process.argv.slice(2);
const llm = args.includes('--llm');
const callersAt = args.indexOf('--callers');
const callersOf = callersAt >= 0 ? args[callersAt + 1] : undefined;
const options = new Set(callersAt >= 0 ? [callersAt, callersAt + 1] : []);
const [inFlight = 1000, functionCount = 25] = args.filter((arg, index) => arg !== '--llm' && !options.has(index)).map(Number);
const models = llm ? await FakeOpenAiServer.start([LLM_BENCH_MODEL]) : null;
const preload = fileURLToPath(new URL('./cpu-profile-preload.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tierflow-profile-'));
const receiver = await startOtlpReceiver({ decodeLater: true });
const half = await startTierflowShape(
  {
    ...tracingTo(receiver),
    NODE_OPTIONS: `--import ${preload}`,
    TIERFLOW_BENCH_PROFILE_DIR: dir,
    ...(models ? { OPENAI_BASE_URL: models.baseURL, OPENAI_API_KEY: 'bench' } : {}),
  },
  models ? llmObjective : undefined,
);
const profiles = (): string[] => readdirSync(dir).filter((name) => name.endsWith('.cpuprofile'));
const toggleProfilers = (): void => {
  for (const pid of half.workerPids) process.kill(pid, 'SIGUSR2');
};
const line = ({ name, share }: Share): string => `${(100 * share).toFixed(1).padStart(6)} %  ${name}`;

try {
  await warmUp(half, { warmUp: WARM_UP_ROOTS, warmUpBatches: WARM_UP_BATCHES, inFlight });
  toggleProfilers();
  const cpuBefore = totalCpuMicros(half.workerPids);
  await runInFlight(half, inFlight);
  const cpuPerRoot = (totalCpuMicros(half.workerPids) - cpuBefore) / inFlight;
  toggleProfilers();
  await waitFor(() => profiles().length === half.workerPids.length, { timeoutMs: 30_000, description: 'a CPU profile from each worker' });
  const read = profiles().map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')) as Profiler.Profile);
  const shares = profileShares(read);
  console.log(
    `${inFlight} roots in flight after ${WARM_UP_ROOTS} warm-up roots and ${WARM_UP_BATCHES} batches in flight; worker CPU ${cpuPerRoot.toFixed(0)} µs per root (four processes, profilers running)`,
  );
  console.log(`\nShare of busy samples (${shares.busySamples}), four workers together, by owner:`);
  for (const owner of shares.owners.filter((owner) => owner.share >= 0.002)) console.log(line(owner));
  console.log(`\nThe ${functionCount} functions with the most self time:`);
  for (const fn of shares.functions.slice(0, functionCount)) console.log(line(fn));
  if (callersOf) {
    console.log(`\n${callersOf}'s samples by the Tierflow code that called it:`);
    for (const caller of callerShares(read, callersOf).slice(0, functionCount)) console.log(line(caller));
  }
} finally {
  await half.stop();
  await receiver.close();
  await models?.close();
  rmSync(dir, { recursive: true, force: true });
}
