// Cells (docs/operations.md#cells): the same shape with the runs spread over cells, on one Redis
// server and on a private Redis Cluster, measured side by side in one run. Redis CPU per root,
// summed over the servers, gives roots per second per Redis core; the busiest server's share
// shows how evenly the cells spread the work.
//   npm run build && node test/dist/bench/cells.js [in-flight=1000] [rounds=2] [--cells 6] [--cluster 3]
import { measureHalf, type HalfFigures } from './measure.js';
import { median } from './shape.js';
import { startTierflowShape, type ShapeStore } from './tierflow-shape.js';

const args = process.argv.slice(2);
const flag = (name: string): number | undefined => {
  const at = args.indexOf(name);
  return at === -1 ? undefined : Number(args.splice(at, 2)[1]);
};
const cells = flag('--cells') ?? 6;
const masters = flag('--cluster') ?? 3;
const [inFlight = 1000, rounds = 2] = args.map(Number);

interface Setup {
  readonly label: string;
  readonly env: NodeJS.ProcessEnv;
  readonly store: ShapeStore;
}

const setups: readonly Setup[] = [
  { label: '1 cell, 1 server', env: {}, store: {} },
  { label: `${cells} cells, 1 server`, env: { TIERFLOW_CELLS: String(cells) }, store: {} },
  { label: `${cells} cells, ${masters} masters`, env: {}, store: { cluster: { masters, cells } } },
];

const figures = new Map<string, HalfFigures[]>(setups.map((setup) => [setup.label, []]));
for (let round = 0; round < rounds; round++) {
  for (const setup of setups) {
    // Tracing off: the figures are Redis's, and a collector would compete for the same cores.
    const half = await startTierflowShape({ OTEL_TRACES_EXPORTER: 'none', ...setup.env }, undefined, setup.store);
    try {
      const measured = await measureHalf(half, { warmUp: 100, sequential: 20, inFlight });
      figures.get(setup.label)!.push(measured);
      console.log(
        `${setup.label.padEnd(22)} ${measured.rootsPerSecond.toFixed(0)} roots/s, ${measured.cpuMicrosPerRoot.toFixed(0)} µs Redis CPU/root, busiest server ${(measured.busiestCpuShare * 100).toFixed(0)} %`,
      );
    } finally {
      await half.stop();
    }
  }
}

console.log(`\nmedians over ${rounds} rounds, ${inFlight} roots in flight:`);
console.log(
  `${''.padEnd(22)}${'roots/s'.padStart(9)}${'cmds/root'.padStart(11)}${'Redis µs/root'.padStart(15)}${'busiest'.padStart(9)}${'roots/s per Redis core'.padStart(24)}` +
    `${'worker µs/root'.padStart(16)}${'ceiling roots/s'.padStart(17)}`,
);
for (const { label } of setups) {
  const all = figures.get(label)!;
  const pick = (of: (f: HalfFigures) => number): number => median(all.map(of));
  const perCore = 1e6 / pick((f) => f.cpuMicrosPerRoot);
  // Where Redis stops: when its busiest server's core is full, workers given cores enough.
  const ceiling = perCore / pick((f) => f.busiestCpuShare);
  const columns = [
    [pick((f) => f.rootsPerSecond).toFixed(0), 9],
    [pick((f) => f.commandsPerRoot).toFixed(0), 11],
    [pick((f) => f.cpuMicrosPerRoot).toFixed(0), 15],
    [`${(pick((f) => f.busiestCpuShare) * 100).toFixed(0)} %`, 9],
    [perCore.toFixed(0), 24],
    [pick((f) => f.workerCpuMicrosPerRoot).toFixed(0), 16],
    [ceiling.toFixed(0), 17],
  ] as const;
  console.log(label.padEnd(22) + columns.map(([text, width]) => text.padStart(width)).join(''));
}
