import type { AuditTrail } from './api-types.js';
import { h } from './dom.js';

/** The kinds of entries, as the audit trail's filter offers them (the runtime's AUDIT_KINDS). */
const KINDS = ['delegation', 'outcome', 'cancellation', 'progress', 'question', 'answer', 'blocked', 'unblocked', 'decision', 'gap', 'tool'] as const;

/** Which page of the audit trail the page shows: after `cursor` (none: the first), of `kind` (empty: all). */
export interface AuditView {
  cursor: string | null;
  kind: string;
}

/** How many entries a page of the audit trail shows. */
export const AUDIT_PAGE = 50;

/** The API path of the page `view` asks for. */
export function auditQuery(view: AuditView): string {
  const query = new URLSearchParams({ limit: String(AUDIT_PAGE) });
  if (view.kind) query.set('kind', view.kind);
  if (view.cursor) query.set('cursor', view.cursor);
  return `/audit?${query.toString()}`;
}

/** The trail's controls: a kind to keep, and older and newer pages; `go` is told the view asked for. */
export function auditControls(view: AuditView, page: AuditTrail | null, go: (view: AuditView) => void): HTMLElement {
  const select = h(
    'select',
    { id: 'audit-kind', 'aria-label': 'Only entries of this kind' },
    h('option', { value: '' }, 'all kinds'),
    ...KINDS.map((kind) => h('option', { value: kind, selected: kind === view.kind }, kind)),
  );
  select.addEventListener('change', () => go({ cursor: null, kind: select.value }));
  const older = h('button', { type: 'button', id: 'audit-older', disabled: !page || page.prev_cursor === null }, '← Older');
  const newer = h('button', { type: 'button', id: 'audit-newer', disabled: !page || page.next_cursor === null }, 'Newer →');
  older.addEventListener('click', () => page?.prev_cursor && go({ ...view, cursor: page.prev_cursor === '0-0' ? null : page.prev_cursor }));
  newer.addEventListener('click', () => page?.next_cursor && go({ ...view, cursor: page.next_cursor }));
  const count = page ? h('span', { class: 'muted', id: 'audit-count' }, `${page.entries.length} of ${page.total}`) : null;
  return h('div', { class: 'inline audit-controls' }, select, older, newer, count);
}
