// What signing costs: whole roots through four worker processes on a private Redis, without a
// key and with one (every hop signed and verified, replay records written), alternated.
//   npm run build && node test/dist/bench/signing.js [sequential=100] [in-flight=1000] [rounds=2]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDelegation, checkSignature, generateKeySet, signingFromEnv } from '@tierflow/runtime/admin';
import { measureTierflow, WARM_UP_BATCHES, WARM_UP_ROOTS, type HalfFigures, type MeasureOptions } from './measure.js';
import { median } from './shape.js';
import { startTierflowShape } from './tierflow-shape.js';

const options: MeasureOptions = { warmUp: WARM_UP_ROOTS, warmUpBatches: WARM_UP_BATCHES, sequential: Number(process.argv[2] ?? 100), inFlight: Number(process.argv[3] ?? 1000) };
const rounds = Number(process.argv[4] ?? 2);
const KEYS_DIR = join(mkdtempSync(join(tmpdir(), 'tierflow-bench-keys-')), 'keys');
generateKeySet(KEYS_DIR);
const measure = (label: string, env: NodeJS.ProcessEnv): Promise<HalfFigures> => measureTierflow(label, { OTEL_TRACES_EXPORTER: 'none', ...env }, options, startTierflowShape);

// The CPU of one hop, in process: build a Fleet delegation, store and read it back (JSON), with
// and without signing it and verifying it; each loop run twice, the first to warm up.
const signing = signingFromEnv({ TIERFLOW_KEYS_DIR: KEYS_DIR })!;
const dispatcher = signing.keys.signer('dispatcher');
const hops = 20_000;
function hopMicros(sign: boolean): number {
  const started = performance.now();
  for (let i = 0; i < hops; i++) {
    const draft = { task_type: 'general', objective: 'bench', specialist_hint: 'sim' };
    const message = buildDelegation('ROUTING_DISPATCHER', `r.0-0.0-0.0-${i}`, 'r.0-0.0-0', draft, Date.now(), sign ? dispatcher : null);
    const stored: unknown = JSON.parse(JSON.stringify(message));
    if (sign && !checkSignature(stored, signing, 'dispatcher').ok) throw new Error('a signature did not verify');
  }
  return (1000 * (performance.now() - started)) / hops;
}
hopMicros(false);
hopMicros(true);
const plain = hopMicros(false);
const signed = hopMicros(true);
console.log(`one hop in process: ${plain.toFixed(1)} µs unsigned, ${signed.toFixed(1)} µs signed and verified (+${(signed - plain).toFixed(1)} µs)`);

const off: HalfFigures[] = [];
const on: HalfFigures[] = [];
for (let round = 0; round < rounds; round++) {
  off.push(await measure('signing off', {}));
  on.push(await measure('signing on', { TIERFLOW_KEYS_DIR: KEYS_DIR }));
}
const ratio = median(on.map((f) => f.rootsPerSecond)) / median(off.map((f) => f.rootsPerSecond));
console.log(`median roots/s: off ${median(off.map((f) => f.rootsPerSecond)).toFixed(0)}, on ${median(on.map((f) => f.rootsPerSecond)).toFixed(0)}; on/off ratio ${ratio.toFixed(2)}`);
console.log(`median p50: off ${median(off.map((f) => f.p50)).toFixed(1)} ms, on ${median(on.map((f) => f.p50)).toFixed(1)} ms`);
console.log(`median Redis commands/root: off ${median(off.map((f) => f.commandsPerRoot)).toFixed(1)}, on ${median(on.map((f) => f.commandsPerRoot)).toFixed(1)}`);
rmSync(join(KEYS_DIR, '..'), { recursive: true, force: true });
