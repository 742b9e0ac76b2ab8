// What signing costs: whole roots through four worker processes on a private Redis, without a
// key and with one (every hop signed and verified, replay records written), alternated.
//   npm run build && node test/dist/bench/signing.js [sequential=100] [in-flight=1000] [rounds=2]
import { buildDelegation, checkSignature, signingFromEnv } from '@tierflow/runtime';
import { redisClient } from '@tierflow/testing';
import { startDeployment } from '../support/deployment.js';
import { countersSince, redisCounters } from './redis-stats.js';
import { benchObjective as objective, median, percentile } from './shape.js';

const sequential = Number(process.argv[2] ?? 100);
const inFlight = Number(process.argv[3] ?? 1000);
const rounds = Number(process.argv[4] ?? 2);
const KEY = `bench:${'s'.repeat(64)}`;

interface Figures {
  readonly p50: number;
  readonly p99: number;
  readonly rootsPerSecond: number;
  readonly commandsPerRoot: number;
}

async function measure(label: string, env: NodeJS.ProcessEnv): Promise<Figures> {
  const deployment = await startDeployment(`bench-${label}`, { TIERFLOW_LOG: 'silent', OTEL_TRACES_EXPORTER: 'none', ...env });
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
    const redis = redisClient(deployment.redis.url);
    const before = await redisCounters(redis);
    const started = performance.now();
    const ids = await Promise.all(Array.from({ length: inFlight }, () => client.enqueue(objective)));
    const outcomes = await Promise.all(ids.map((id) => client.waitForResult(id, { timeoutMs: 300_000 })));
    const seconds = (performance.now() - started) / 1000;
    const used = countersSince(before, await redisCounters(redis));
    redis.disconnect();
    const failed = outcomes.filter((outcome) => outcome.payload.status !== 'success' || (env.TIERFLOW_SIGNING_KEY && !outcome.signature)).length;
    if (failed > 0) throw new Error(`${failed} roots did not succeed${env.TIERFLOW_SIGNING_KEY ? ' signed' : ''}`);
    const figures = { p50: percentile(latencies, 50), p99: percentile(latencies, 99), rootsPerSecond: inFlight / seconds, commandsPerRoot: used.commands / inFlight };
    console.log(
      `${label.padEnd(12)} single root (${sequential} sequential): p50 ${figures.p50.toFixed(1)} ms, p99 ${figures.p99.toFixed(1)} ms; ` +
        `${inFlight} in flight: ${figures.rootsPerSecond.toFixed(0)} roots/s, ${figures.commandsPerRoot.toFixed(1)} Redis commands/root`,
    );
    return figures;
  } finally {
    await deployment.stop();
  }
}

// The CPU of one hop, in process: build a Fleet delegation, store and read it back (JSON), with
// and without signing it and verifying it; each loop run twice, the first to warm up.
const signing = signingFromEnv({ TIERFLOW_SIGNING_KEY: KEY })!;
const hops = 20_000;
function hopMicros(sign: boolean): number {
  const started = performance.now();
  for (let i = 0; i < hops; i++) {
    const draft = { task_type: 'general', objective: 'bench', specialist_hint: 'sim' };
    const message = buildDelegation('ROUTING_DISPATCHER', `r.0-0.0-0.0-${i}`, 'r.0-0.0-0', draft, Date.now(), sign ? signing : null);
    const stored: unknown = JSON.parse(JSON.stringify(message));
    if (sign && !checkSignature(stored, signing).ok) throw new Error('a signature did not verify');
  }
  return (1000 * (performance.now() - started)) / hops;
}
hopMicros(false);
hopMicros(true);
const plain = hopMicros(false);
const signed = hopMicros(true);
console.log(`one hop in process: ${plain.toFixed(1)} µs unsigned, ${signed.toFixed(1)} µs signed and verified (+${(signed - plain).toFixed(1)} µs)`);

const off: Figures[] = [];
const on: Figures[] = [];
for (let round = 0; round < rounds; round++) {
  off.push(await measure('signing off', {}));
  on.push(await measure('signing on', { TIERFLOW_SIGNING_KEY: KEY }));
}
const ratio = median(on.map((f) => f.rootsPerSecond)) / median(off.map((f) => f.rootsPerSecond));
console.log(`median roots/s: off ${median(off.map((f) => f.rootsPerSecond)).toFixed(0)}, on ${median(on.map((f) => f.rootsPerSecond)).toFixed(0)}; on/off ratio ${ratio.toFixed(2)}`);
console.log(`median p50: off ${median(off.map((f) => f.p50)).toFixed(1)} ms, on ${median(on.map((f) => f.p50)).toFixed(1)} ms`);
console.log(`median Redis commands/root: off ${median(off.map((f) => f.commandsPerRoot)).toFixed(1)}, on ${median(on.map((f) => f.commandsPerRoot)).toFixed(1)}`);
