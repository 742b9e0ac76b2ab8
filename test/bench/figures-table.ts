import type { HalfFigures } from './measure.js';
import { mb } from './rss.js';
import { median } from './shape.js';

/** A row of a comparison: its label, the figure, and its digits. */
export type FigureRow = readonly [string, (f: HalfFigures) => number, number];

/** The rows the comparisons of two Redis-backed halves print. */
export const REDIS_ROWS: readonly FigureRow[] = [
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

/**
 * Medians of each column's rounds side by side, then the last column over each of the others.
 * `names` and `columns` go together, one name per column of rounds.
 */
export function figuresTable(names: readonly string[], columns: readonly (readonly HalfFigures[])[], rows: readonly FigureRow[] = REDIS_ROWS): string[] {
  const last = names.length - 1;
  const ratios = names.slice(0, last).map((name) => `${names[last]}/${name}`);
  const header = `${''.padEnd(26)}${names.map((name) => name.padStart(10)).join('')}${ratios.map((ratio) => ratio.padStart(Math.max(17, ratio.length + 2))).join('')}`;
  const lines = [header];
  for (const [label, pick, digits] of rows) {
    const medians = columns.map((rounds) => median(rounds.map(pick)));
    const own = medians[last]!;
    lines.push(
      `${label.padEnd(26)}${medians.map((value) => value.toFixed(digits).padStart(10)).join('')}` +
        ratios.map((ratio, index) => (own / medians[index]!).toFixed(2).padStart(Math.max(17, ratio.length + 2))).join(''),
    );
  }
  return lines;
}
