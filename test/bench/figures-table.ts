import type { HalfFigures } from './measure.js';
import { mb } from './rss.js';
import { median } from './shape.js';

/** The rows both comparisons print: a label, the figure, and its digits. */
const ROWS: readonly [string, (f: HalfFigures) => number, number][] = [
  ['roots/s', (f) => f.rootsPerSecond, 0],
  ['single p50 (ms)', (f) => f.p50, 1],
  ['single p99 (ms)', (f) => f.p99, 1],
  ['Redis cmds/root', (f) => f.commandsPerRoot, 0],
  ['Redis CPU µs/root', (f) => f.cpuMicrosPerRoot, 0],
  ['Redis socket reads/root', (f) => f.readsPerRoot, 0],
  ['Redis KB in/root', (f) => f.inKbPerRoot, 1],
  ['Redis KB out/root', (f) => f.outKbPerRoot, 1],
  ['worker CPU µs/root', (f) => f.workerCpuMicrosPerRoot, 0],
  ['  off main threads', (f) => f.backgroundCpuMicrosPerRoot, 0],
  ['bench process CPU µs/root', (f) => f.driverCpuMicrosPerRoot, 0],
  ['worker RSS sum (MB)', (f) => mb(f.rss.sum), 0],
  ['worker RSS max (MB)', (f) => mb(f.rss.max), 0],
  ['worker RSS peak max (MB)', (f) => mb(f.rss.peakMax), 0],
];

/** Medians of each half's rounds side by side, and the second's over the first's. */
export function figuresTable(names: readonly [string, string], first: readonly HalfFigures[], second: readonly HalfFigures[]): string[] {
  const lines = [`${''.padEnd(26)}${names[0].padStart(10)}${names[1].padStart(10)}${`${names[1]}/${names[0]}`.padStart(17)}`];
  for (const [label, pick, digits] of ROWS) {
    const a = median(first.map(pick));
    const b = median(second.map(pick));
    lines.push(`${label.padEnd(26)}${a.toFixed(digits).padStart(10)}${b.toFixed(digits).padStart(10)}${(b / a).toFixed(2).padStart(17)}`);
  }
  return lines;
}
