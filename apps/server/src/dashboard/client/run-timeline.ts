import type { RunTimeline } from './api-types.js';
import { h } from './dom.js';
import { duration, shortId, tierSlug } from './format.js';
import { timelineLayout, type TimelineBar } from './timeline-layout.js';

/** The words of each kind of span, in the legend's order; the stylesheet colours them by `data-kind`. */
const KINDS: readonly (readonly [TimelineBar['kind'], string])[] = [
  ['queued', 'queued'],
  ['running', 'running'],
  ['children', 'waiting for children'],
  ['person', 'waiting for a person'],
  ['model', 'waiting for its model'],
  ['retry', 'waiting to retry'],
];
const WORDS = new Map(KINDS);

/**
 * A run's timeline as a waterfall: a row per node (indented by depth, in the tree's order), its
 * queued, running and waiting stretches as coloured bars on one time axis, a legend above. Each
 * row's name is a button that opens its node, as a row of the tree does. Positions are set through
 * the DOM's style object: the page's policy refuses inline style attributes.
 */
export function timelineView(timeline: RunTimeline, now: number): HTMLElement {
  const layout = timelineLayout(timeline, now);
  const legend = h('ul', { class: 'legend' }, ...KINDS.map(([kind, words]) => h('li', {}, h('span', { class: 'swatch', 'data-kind': kind }), words)));
  const note = timeline.recorded ? null : h('p', { class: 'muted' }, 'This run was not recorded: each node shows only its start and end, from its tree.');
  const axis = h('div', { class: 'axis' }, ...layout.ticks.map((tick) => placed(h('span', { class: 'tick' }, duration(tick.ms)), tick.left, null)));
  const rows = layout.rows.map((row) => {
    const name = h('button', { type: 'button', class: 'timeline-name', title: row.id, 'data-node-id': row.id }, `${tierSlug(row.tier)} ${shortId(row.id, timeline.root_id)}`);
    name.style.paddingLeft = `${row.depth + 0.25}rem`;
    const bars = row.bars.map((bar) =>
      placed(
        h('span', { class: 'bar', 'data-kind': bar.kind, 'data-open': bar.open, title: `${WORDS.get(bar.kind) ?? bar.kind}: ${duration(bar.ms)}${bar.open ? ' so far' : ''}` }),
        bar.left,
        bar.width,
      ),
    );
    return h('div', { class: 'timeline-row', 'data-node-id': row.id }, name, h('div', { class: 'timeline-track' }, ...bars));
  });
  return h('div', { class: 'timeline' }, legend, note, h('div', { class: 'timeline-row' }, h('span', { class: 'timeline-name' }), axis), ...rows);
}

function placed<E extends HTMLElement>(element: E, left: number, width: number | null): E {
  element.style.left = `${left.toFixed(3)}%`;
  if (width !== null) element.style.width = `max(2px, ${width.toFixed(3)}%)`;
  return element;
}
