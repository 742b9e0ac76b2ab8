import type { AuditEntry } from './api-types.js';
import { h, statusBadge } from './dom.js';
import { clock, shortId, tierSlug } from './format.js';

/** A run's audit trail as a table, oldest first: every handoff, progress note, question and answer. */
export function auditTable(entries: readonly AuditEntry[], rootId: string): HTMLElement {
  if (entries.length === 0) return h('p', { class: 'muted' }, 'Nothing on the audit trail yet.');
  const titles = ['Time', 'From', 'To', 'Kind', 'Direction', 'Message', 'Status', 'Confidence', 'Detail'];
  return h(
    'table',
    { class: 'audit' },
    h('thead', {}, h('tr', {}, ...titles.map((title) => h('th', { scope: 'col' }, title)))),
    h(
      'tbody',
      {},
      ...entries.map((entry) =>
        h(
          'tr',
          { 'data-kind': entry.kind },
          h('td', { class: 'number', title: entry.time }, clock(entry.time)),
          h('td', {}, tierSlug(entry.from)),
          h('td', {}, tierSlug(entry.to)),
          h('td', {}, entry.kind),
          h('td', {}, entry.direction),
          h('td', { class: 'id', title: entry.id }, shortId(entry.id, rootId)),
          h('td', {}, entry.status ? statusBadge(entry.status) : ''),
          h('td', { class: 'number' }, entry.confidence === null ? '' : entry.confidence.toFixed(2)),
          h('td', { class: 'detail' }, entry.attempt !== null && entry.attempt > 1 ? `${entry.detail} (attempt ${entry.attempt})` : entry.detail),
        ),
      ),
    ),
  );
}
