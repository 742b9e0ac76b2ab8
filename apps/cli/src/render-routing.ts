import { textTable } from './text-table.js';

/**
 * A routing decision as `tierflow inspect` shows it: what was chosen and why, then the scores the
 * Dispatcher saw, a candidate a line. The decision came over the wire: a field of the wrong type
 * is left out, never an error; its texts go through `clean` (control characters made visible)
 * before the table is measured. Pure.
 */
export function routingLines(routing: Readonly<Record<string, unknown>>, clean: (text: string) => string = (text) => text): string[] {
  const text = (field: string): string | null => (typeof routing[field] === 'string' ? clean(routing[field]) : null);
  const gain = typeof routing.expected_gain === 'number' ? routing.expected_gain : null;
  const chosen = text('chosen');
  const head = [
    `${text('mode') ?? '?'}: ${chosen ?? '?'}${text('reason') ? ` (${text('reason')})` : ''}`,
    text('fixed') !== null && text('fixed') !== chosen ? `fixed pick ${text('fixed')}` : '',
    text('learned') !== null && text('learned') !== chosen ? `learned would pick ${text('learned')}` : '',
    gain === null ? '' : `expected gain ${gain >= 0 ? '+' : ''}${gain.toFixed(3)}`,
  ].filter(Boolean);
  const scores = Array.isArray(routing.scores) ? routing.scores.filter((score): score is Record<string, unknown> => typeof score === 'object' && score !== null) : [];
  if (scores.length === 0) return [head.join('; ')];
  const number = (value: unknown, digits: number): string => (typeof value === 'number' && Number.isFinite(value) ? value.toFixed(digits) : '-');
  const table = textTable(
    ['SPECIALIST', 'SAMPLES', 'SUCCESS', 'SAMPLED', 'COST $', 'LATENCY MS', 'SCORE'],
    scores.map((score) => [
      typeof score.specialist === 'string' ? clean(score.specialist) : '?',
      number(score.samples, 1),
      number(score.success_mean, 3),
      number(score.sampled, 3),
      number(score.cost_usd, 4),
      number(score.latency_ms, 0),
      number(score.score, 3),
    ]),
  );
  return [head.join('; '), ...table.split('\n').filter((line) => line !== '')];
}
