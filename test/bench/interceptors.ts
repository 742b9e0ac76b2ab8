// What handoff interceptors cost: in process, one handoff through no chain, through a chain of
// one interceptor that passes it on, and through the evidence-grades built-in; then whole roots
// through four worker processes on a private Redis, with no interceptors and with one that passes
// every message on at both ends, alternated. The shape (root → 1 → 1 → 3 leaves) makes 12
// messages a root: 11 sent through a chain and 11 received through one.
//   npm run bench:interceptors [sequential=100] [in-flight=1000] [rounds=2]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { outcomePayloadSchema } from '@tierflow/protocol';
import { composeHandoffChain, evidenceGrades, type Handoff, type HandoffChain } from '@tierflow/runtime/policy';
import { type HandoffInterceptor } from '@tierflow/runtime';
import { measureTierflow, WARM_UP_BATCHES, WARM_UP_ROOTS, type HalfFigures, type MeasureOptions } from './measure.js';
import { median } from './shape.js';
import { startTierflowShape } from './tierflow-shape.js';

const options: MeasureOptions = { warmUp: WARM_UP_ROOTS, warmUpBatches: WARM_UP_BATCHES, sequential: Number(process.argv[2] ?? 100), inFlight: Number(process.argv[3] ?? 1000) };
const rounds = Number(process.argv[4] ?? 2);
const CHAIN_RUNS_PER_ROOT = 22;

const passOn: HandoffInterceptor = { name: 'pass-on', send: (handoff, next) => next(handoff), receive: (handoff, next) => next(handoff) };
const handoff: Handoff = {
  kind: 'outcome',
  id: 'r.0-0.0-0.0-0.out',
  rootId: 'r',
  from: 'SPECIALIZED_FLEET',
  to: 'ROUTING_DISPATCHER',
  signal: new AbortController().signal,
  payload: outcomePayloadSchema.parse({ status: 'success', summary: 'done', confidence: 0.9, execution_time_ms: 1, artifacts: [{ artifact_type: 'text', inline_content: 'x' }] }),
  request: { task_type: 'general', objective: 'bench', constraints: [], context_refs: [], priority: 2, timeout_ms: null, deadline_hint: null, specialist_hint: 'sim', task_data: {} },
  received: [],
};

/** Nanoseconds per handoff through `chain`, as the engine calls it (no chain: not called at all). */
async function nanosPerHandoff(chain: HandoffChain | null, count = 200_000): Promise<number> {
  const started = process.hrtime.bigint();
  for (let i = 0; i < count; i++) if (chain) await chain(handoff);
  return Number(process.hrtime.bigint() - started) / count;
}

const chains: [string, HandoffChain | null][] = [
  ['no interceptors', composeHandoffChain([], 'send')],
  ['one that passes it on', composeHandoffChain([passOn], 'send')],
  ['evidence-grades (send)', composeHandoffChain([evidenceGrades()], 'send')],
];
for (const [, chain] of chains) await nanosPerHandoff(chain); // warm up
for (const [label, chain] of chains) console.log(`one handoff in process, ${label.padEnd(24)} ${(await nanosPerHandoff(chain)).toFixed(0).padStart(6)} ns`);

const dir = mkdtempSync(join(tmpdir(), 'tierflow-bench-interceptors-'));
writeFileSync(join(dir, 'tierflow.config.mjs'), 'const on = (handoff, next) => next(handoff);\nexport default { interceptors: [{ name: "pass-on", send: on, receive: on }] };\n');
const measure = (label: string, env: NodeJS.ProcessEnv): Promise<HalfFigures> => measureTierflow(label, { OTEL_TRACES_EXPORTER: 'none', ...env }, options, startTierflowShape);
try {
  const none: HalfFigures[] = [];
  const one: HalfFigures[] = [];
  for (let round = 0; round < rounds; round++) {
    none.push(await measure('none', {}));
    one.push(await measure('pass-on', { TIERFLOW_CONFIG: join(dir, 'tierflow.config.mjs') }));
  }
  const roots = (figures: HalfFigures[]) => median(figures.map((f) => f.rootsPerSecond));
  const cpu = (figures: HalfFigures[]) => median(figures.map((f) => f.workerCpuMicrosPerRoot));
  console.log(`median roots/s: none ${roots(none).toFixed(0)}, pass-on ${roots(one).toFixed(0)}; pass-on/none ratio ${(roots(one) / roots(none)).toFixed(2)}`);
  console.log(`median p50: none ${median(none.map((f) => f.p50)).toFixed(1)} ms, pass-on ${median(one.map((f) => f.p50)).toFixed(1)} ms`);
  console.log(
    `median worker CPU µs/root: none ${cpu(none).toFixed(0)}, pass-on ${cpu(one).toFixed(0)}; ` +
      `${((cpu(one) - cpu(none)) / CHAIN_RUNS_PER_ROOT).toFixed(1)} µs per chain run (${CHAIN_RUNS_PER_ROOT} a root)`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
