import type { HistoryReport } from '@tierflow/runtime/admin';
import { age } from '@tierflow/server/age';
import { calibrationText, decayedCount, latency, meanUsd, percent, routingText, tokens } from '@tierflow/server/specialist-words';
import { textTable } from './text-table.js';

type TaskTypeHistory = HistoryReport['task_types'][number];
type SpecialistStats = TaskTypeHistory['specialists'][number]['stats'];

const HEADER = ['SPECIALIST', 'MODEL', 'SAMPLES', 'SUCCESS', 'CALIBRATION', 'P50', 'P95', 'TOKENS', 'COST', 'SURPRISES'];

/**
 * The history report as `tierflow stats` prints it: a table per task type (a specialist a line,
 * each of its models on a line below it), the task type's routing under it, then the bottlenecks.
 * One line saying so when there is no history yet (or none of the task type asked).
 */
export function renderStats(report: HistoryReport, options: { readonly taskType?: string } = {}): string {
  if (report.task_types.length === 0) {
    return options.taskType === undefined ? 'no history yet: the Monitor learns from each run that finishes (tierflow runs lists them)\n' : `no history of task type ${options.taskType} yet\n`;
  }
  const halfLife = report.half_life_ms === null ? '' : `, half-life ${age(report.half_life_ms)}`;
  const routing = routingText(report.routing);
  const heading = `history of ${report.task_types.length} task type${report.task_types.length === 1 ? '' : 's'} (counts decayed${halfLife})\n${routing === null ? '' : `routing over all task types: ${routing}\n`}`;
  const sections = [heading, ...report.task_types.map(taskTypeSection)];
  if (report.bottlenecks.length > 0) sections.push(`bottlenecks\n${report.bottlenecks.map((entry) => `  ${bottleneckLine(entry)}\n`).join('')}`);
  return sections.join('\n');
}

/** `slow  code_generation / writer: p95 12.0 s over 42 samples`. */
function bottleneckLine(entry: HistoryReport['bottlenecks'][number]): string {
  const figure = entry.reason === 'slow' ? `p95 ${latency(entry.p95_latency_ms)}` : `success ${percent(entry.success_rate)}`;
  return `${entry.reason.padEnd(10)}  ${entry.task_type} / ${entry.specialist}: ${figure} over ${decayedCount(entry.samples)} samples`;
}

function taskTypeSection(history: TaskTypeHistory): string {
  const rows = history.specialists.flatMap(({ specialist, stats, models }) => [
    [specialist, '', ...figures(stats)],
    ...models.map(({ model, stats: modelStats }) => ['', model, ...figures(modelStats)]),
  ]);
  const routing = routingText(history.routing);
  return `task type ${history.task_type}\n${indent(textTable(HEADER, rows))}${routing === null ? '' : `  routing: ${routing}\n`}`;
}

function figures(stats: SpecialistStats): string[] {
  return [
    decayedCount(stats.samples),
    percent(stats.success_rate),
    calibrationText(stats.calibration),
    latency(stats.latency_ms?.p50),
    latency(stats.latency_ms?.p95),
    tokens(stats.mean_tokens_in === null || stats.mean_tokens_out === null ? null : stats.mean_tokens_in + stats.mean_tokens_out),
    meanUsd(stats.mean_cost_usd),
    stats.surprises > 0 ? decayedCount(stats.surprises) : '-',
  ];
}

function indent(text: string): string {
  return text.replace(/^(?=.)/gm, '  ');
}
