// Where a root's CPU goes in the workers, every thread counted: Linux `perf` samples the four
// worker processes on-CPU while a batch of roots runs in flight after the warm-up, and each sample
// is charged as perf-stacks.ts says: on a main thread to the package of the innermost JavaScript
// frame (builtins, the interpreter and V8's runtime count for the code that called them), on
// V8's own threads to the collector or the optimizing compiler. The inspector profile
// (bench:profile) sees main threads only, and charges builtins to no one.
//   npm run build && node test/dist/bench/perf-profile.js [--bullmq] [in-flight=1000] [functions=25]
// Needs `perf` (Debian: apt-get install linux-perf) and the right to record other processes.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@tierflow/testing';
import { startOtlpReceiver, tracingTo } from '../support/otlp-receiver.js';
import type { BenchHalf } from './bench-half.js';
import { startBullmqShape } from './bullmq-shape.js';
import { runInFlight, warmUp, WARM_UP_BATCHES, WARM_UP_ROOTS } from './measure.js';
import { parsePerfScript, perfShares } from './perf-stacks.js';
import type { Share } from './profile-owners.js';
import { startTierflowShape } from './tierflow-shape.js';

const args = process.argv.slice(2);
const bullmq = args.includes('--bullmq');
const [inFlight = 1000, functionCount = 25] = args.filter((arg) => arg !== '--bullmq').map(Number);
/** Samples a second per thread: 1 ms apart, so a sample stands for a millisecond of CPU. */
const FREQUENCY = 1000;

try {
  execFileSync('perf', ['--version'], { stdio: 'ignore' });
} catch {
  console.error('perf is not installed: on Debian, apt-get install linux-perf');
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), 'tierflow-perf-'));
const receiver = await startOtlpReceiver({ decodeLater: true });
// Node writes a map of its compiled functions for perf to name them by (/tmp/perf-<pid>.map).
const mapped = { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --perf-basic-prof-only-functions`.trim() };
const half: BenchHalf = bullmq ? await startBullmqShape(mapped) : await startTierflowShape({ ...tracingTo(receiver), ...mapped });
const line = ({ name, share }: Share, perRoot: number): string => `${(100 * share).toFixed(1).padStart(6)} %  ${(share * perRoot).toFixed(0).padStart(6)} µs/root  ${name}`;

try {
  await warmUp(half, { warmUp: WARM_UP_ROOTS, warmUpBatches: WARM_UP_BATCHES, inFlight });
  const data = join(dir, 'perf.data');
  const recorder = spawn('perf', ['record', '-F', String(FREQUENCY), '-g', '-o', data, '-p', half.workerPids.join(',')], { stdio: ['ignore', 'ignore', 'pipe'] });
  const recorded = new Promise<void>((resolve) => recorder.once('exit', () => resolve()));
  await waitFor(() => existsSync(data) || recorder.exitCode !== null, { timeoutMs: 10_000, description: 'perf to start recording' });
  if (recorder.exitCode !== null) throw new Error('perf record exited at once: is recording other processes allowed (kernel.perf_event_paranoid)?');
  await runInFlight(half, inFlight);
  recorder.kill('SIGINT');
  await recorded;
  const script = execFileSync('perf', ['script', '-F', 'tid,ip,sym', '-i', data], { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] });
  const shares = perfShares(parsePerfScript(script), new Set(half.workerPids));
  const perRoot = (shares.samples * (1e6 / FREQUENCY)) / inFlight;
  console.log(`${bullmq ? 'BullMQ' : 'Tierflow'}: ${inFlight} roots in flight after ${WARM_UP_ROOTS} warm-up roots and ${WARM_UP_BATCHES} batches in flight`);
  console.log(`${perRoot.toFixed(0)} µs of CPU a root on every thread of the ${half.workerPids.length} worker processes (${shares.samples} samples at ${FREQUENCY} Hz)`);
  console.log('\nBy owner:');
  for (const owner of shares.owners.filter((owner) => owner.share >= 0.002)) console.log(line(owner, perRoot));
  console.log(`\nThe ${functionCount} JavaScript functions innermost on the main threads' stacks:`);
  for (const fn of shares.functions.slice(0, functionCount)) console.log(line(fn, perRoot));
} finally {
  await half.stop();
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
  for (const pid of half.workerPids) rmSync(join(tmpdir(), `perf-${pid}.map`), { force: true });
}
