// What a model call costs the runtime beyond the call itself: the bench shape (root → 1 → 1 → 3
// leaves) with `sim` leaves and with LLM leaves, answered at once by a model server in this
// process (so its time is not the workers'), alternating halves on private Redis servers;
// medians over the rounds. The LLM leaves add what a real one does: the prompt, the HTTP call
// through the openai client, and the run's usage meter (two charge scripts a call).
//   npm run build && node test/dist/bench/llm-hop.js [sequential=100] [in-flight=500] [rounds=2]
import { FakeOpenAiServer } from '@tierflow/testing';
import { LLM_BENCH_MODEL, llmObjective, simObjective } from './llm-shape.js';
import { measureHalf, type HalfFigures } from './measure.js';
import { median } from './shape.js';
import { startTierflowShape } from './tierflow-shape.js';

const [sequential = 100, inFlight = 500, rounds = 2] = process.argv.slice(2).map(Number);
const models = await FakeOpenAiServer.start([LLM_BENCH_MODEL]);

type Side = 'sim' | 'llm';

async function half(side: Side): Promise<HalfFigures> {
  // The Fleet serves every model the endpoint lists: here, one.
  const env = side === 'llm' ? { OPENAI_BASE_URL: models.baseURL, OPENAI_API_KEY: 'bench' } : {};
  const target = await startTierflowShape({ OTEL_TRACES_EXPORTER: 'none', ...env }, side === 'llm' ? llmObjective : simObjective);
  try {
    const figures = await measureHalf(target, { warmUp: 100, sequential, inFlight });
    console.log(
      `${side.padEnd(4)} p50 ${figures.p50.toFixed(1)} ms, ${figures.rootsPerSecond.toFixed(0)} roots/s, ${figures.commandsPerRoot.toFixed(0)} cmds/root, ` +
        `${figures.cpuMicrosPerRoot.toFixed(0)} µs Redis CPU/root, ${figures.workerCpuMicrosPerRoot.toFixed(0)} µs worker CPU/root`,
    );
    return figures;
  } finally {
    await target.stop();
  }
}

const figures: Record<Side, HalfFigures[]> = { sim: [], llm: [] };
try {
  for (let round = 0; round < rounds; round++) {
    for (const side of (round % 2 === 0 ? ['sim', 'llm'] : ['llm', 'sim']) as Side[]) figures[side].push(await half(side));
  }
} finally {
  await models.close();
}

const rows: [string, (f: HalfFigures) => number, number][] = [
  ['roots/s', (f) => f.rootsPerSecond, 0],
  ['single p50 (ms)', (f) => f.p50, 1],
  ['Redis cmds/root', (f) => f.commandsPerRoot, 0],
  ['Redis CPU µs/root', (f) => f.cpuMicrosPerRoot, 0],
  ['worker CPU µs/root', (f) => f.workerCpuMicrosPerRoot, 0],
];
console.log(`\nmedians over ${rounds} rounds, ${inFlight} roots in flight (3 leaves a root: per model call, divide the difference by 3)`);
console.log(`${''.padEnd(20)} ${'sim'.padStart(10)} ${'llm'.padStart(10)} ${'llm − sim'.padStart(11)}`);
for (const [name, pick, digits] of rows) {
  const sim = median(figures.sim.map(pick));
  const llm = median(figures.llm.map(pick));
  console.log(`${name.padEnd(20)} ${sim.toFixed(digits).padStart(10)} ${llm.toFixed(digits).padStart(10)} ${(llm - sim).toFixed(digits).padStart(11)}`);
}
