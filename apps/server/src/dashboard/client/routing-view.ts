import { h } from './dom.js';

/** The line that says what the Dispatcher chose and why; the decision came over the wire, so a field of the wrong type is left out. Pure. */
export function routingSummary(routing: Readonly<Record<string, unknown>>): string {
  const text = (field: string): string | null => (typeof routing[field] === 'string' ? routing[field] : null);
  const gain = typeof routing.expected_gain === 'number' ? routing.expected_gain : null;
  const chosen = text('chosen');
  return [
    `${text('mode') ?? '?'}: ${chosen ?? '?'}${text('reason') ? ` (${text('reason')})` : ''}`,
    text('fixed') !== null && text('fixed') !== chosen ? `fixed pick ${text('fixed')}` : '',
    text('learned') !== null && text('learned') !== chosen ? `learned would pick ${text('learned')}` : '',
    gain === null ? '' : `expected gain ${gain >= 0 ? '+' : ''}${gain.toFixed(3)}`,
  ]
    .filter(Boolean)
    .join('; ');
}

/** A routing decision on the node panel: its line, then the candidates' scores as a table (docs/operations.md#routing-modes). */
export function routingView(routing: Readonly<Record<string, unknown>>): HTMLElement {
  const scores = Array.isArray(routing.scores) ? routing.scores.filter((score): score is Record<string, unknown> => typeof score === 'object' && score !== null) : [];
  const number = (value: unknown, digits: number): string => (typeof value === 'number' && Number.isFinite(value) ? value.toFixed(digits) : '–');
  const titles = ['Specialist', 'Samples', 'Success', 'Sampled', 'Cost $', 'Latency ms', 'Score'];
  return h(
    'div',
    { class: 'routing', id: 'node-routing' },
    h('div', { class: 'text' }, routingSummary(routing)),
    scores.length === 0
      ? null
      : h(
          'table',
          {},
          h('thead', {}, h('tr', {}, ...titles.map((title) => h('th', { scope: 'col' }, title)))),
          h(
            'tbody',
            {},
            ...scores.map((score) =>
              h(
                'tr',
                {},
                h('td', {}, typeof score.specialist === 'string' ? score.specialist : '?'),
                h('td', {}, number(score.samples, 1)),
                h('td', {}, number(score.success_mean, 3)),
                h('td', {}, number(score.sampled, 3)),
                h('td', {}, number(score.cost_usd, 4)),
                h('td', {}, number(score.latency_ms, 0)),
                h('td', {}, number(score.score, 3)),
              ),
            ),
          ),
        ),
  );
}
