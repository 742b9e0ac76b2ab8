// What a leaf costs as the fan-out grows: root → 1 → 1 → N leaves (no work in them), tracing to a
// local receiver as in compare.ts, the same number of leaves in flight at each width, widths
// alternating; medians over the rounds. The target: per-leaf CPU at a fan-out of 100 within 1.2×
// of a fan-out of 3 (cost that grows with the work and nothing else).
//   npm run build && node test/dist/bench/fan-out.js [leaves-in-flight=3000] [rounds=2] [widths=3,100]
import type { ObjectiveFile } from '@tierflow/runtime';
import { startOtlpReceiver, tracingTo } from '../support/otlp-receiver.js';
import { measureHalf, type HalfFigures } from './measure.js';
import { median } from './shape.js';
import { startTierflowShape } from './tierflow-shape.js';

const [leavesInFlight = 3000, rounds = 2] = process.argv.slice(2, 4).map(Number);
const widths = (process.argv[4] ?? '3,100').split(',').map(Number);

function objective(width: number): ObjectiveFile {
  const subtasks = Array.from({ length: width }, (_, index) => ({ objective: `subtask ${index}`, task_data: { sim: { delay_ms: 0 } } }));
  return { objective: 'bench', task_data: { plan: { strategy: 'all_success', subtasks } } };
}

const receiver = await startOtlpReceiver({ decodeLater: true });
const tracing = tracingTo(receiver);

interface PerLeaf {
  readonly workerCpu: number;
  readonly redisCpu: number;
  readonly commands: number;
  readonly leavesPerSecond: number;
}

async function measure(width: number): Promise<PerLeaf> {
  const roots = Math.max(1, Math.round(leavesInFlight / width));
  const half = await startTierflowShape(tracing, objective(width));
  try {
    // Warm-up: about as many leaves as one measurement, one root at a time.
    const figures: HalfFigures = await measureHalf(half, { warmUp: Math.max(5, Math.round(600 / width)), sequential: 0, inFlight: roots });
    receiver.decodePending();
    const leaves = roots * width;
    const perLeaf = (perRoot: number): number => (perRoot * roots) / leaves;
    return {
      workerCpu: perLeaf(figures.workerCpuMicrosPerRoot),
      redisCpu: perLeaf(figures.cpuMicrosPerRoot),
      commands: perLeaf(figures.commandsPerRoot),
      leavesPerSecond: figures.rootsPerSecond * width,
    };
  } finally {
    await half.stop();
    receiver.spans.length = 0;
  }
}

try {
  const results = new Map<number, PerLeaf[]>(widths.map((width) => [width, []]));
  for (let round = 0; round < rounds; round++) {
    for (const width of widths) {
      const figures = await measure(width);
      results.get(width)!.push(figures);
      console.log(
        `fan-out ${String(width).padStart(3)}: ${figures.leavesPerSecond.toFixed(0)} leaves/s, ${figures.workerCpu.toFixed(0)} µs worker CPU/leaf, ` +
          `${figures.redisCpu.toFixed(0)} µs Redis CPU/leaf, ${figures.commands.toFixed(0)} Redis cmds/leaf`,
      );
    }
  }
  const pick = (width: number, value: (figures: PerLeaf) => number): number => median(results.get(width)!.map(value));
  console.log(`\nmedians of ${rounds} rounds, about ${leavesInFlight} leaves in flight at each width`);
  const [narrow, wide] = [widths[0]!, widths.at(-1)!];
  for (const width of widths) {
    console.log(`fan-out ${String(width).padStart(3)}: ${pick(width, (f) => f.workerCpu).toFixed(0)} µs worker CPU/leaf, ${pick(width, (f) => f.redisCpu).toFixed(0)} µs Redis CPU/leaf`);
  }
  const ratio = (value: (figures: PerLeaf) => number): string => (pick(wide, value) / pick(narrow, value)).toFixed(2);
  console.log(`fan-out ${wide}/${narrow} per-leaf worker CPU ratio: ${ratio((f) => f.workerCpu)}, Redis CPU ratio: ${ratio((f) => f.redisCpu)}`);
} finally {
  await receiver.close();
}
