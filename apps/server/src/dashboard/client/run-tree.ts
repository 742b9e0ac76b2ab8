import type { NodeEvent, RunNode } from './api-types.js';
import { h, statusBadge } from './dom.js';
import { cost, elapsed, progressText, shortId, tierSlug, tokenCount } from './format.js';

/** The tree with one node's fields as a `node` event gives them; null when the tree has no such node yet. */
export function patchNode(tree: RunNode, event: NodeEvent): RunNode | null {
  if (tree.id === event.id) {
    const { status, queue_state, specialist, attempts, progress, usage, questions } = event;
    return { ...tree, status, queue_state, specialist, attempts, progress, usage, ...(questions ? { questions } : {}) };
  }
  for (const [index, child] of tree.children.entries()) {
    const patched = patchNode(child, event);
    if (patched) return { ...tree, children: tree.children.with(index, patched) };
  }
  return null;
}

/** Why a node shows a status it did not give itself (see `tierflow status`). */
function sourceNote(node: RunNode): string | null {
  switch (node.source) {
    case 'parent':
      return 'recorded by its parent';
    case 'cancellation':
      return 'a cancellation was sent; no job and no outcome on record';
    case 'none':
      return 'the delegation was sent; no job and no outcome on record';
    default:
      return null;
  }
}

/**
 * A run's delegation tree as a table, one node a row, drawn as `tierflow watch` draws it: tier,
 * id, task, specialist, status, elapsed time (against `now` while running), attempts, progress,
 * confidence, and tokens and cost when any node called a model.
 */
export function treeTable(root: RunNode, now: number): HTMLTableElement {
  const rows: HTMLTableRowElement[] = [];
  let usage = false;
  const walk = (node: RunNode, lead: string, childLead: string): void => {
    usage ||= node.usage !== null;
    rows.push(nodeRow(node, root.id, lead, now));
    node.children.forEach((child, index) => {
      const last = index === node.children.length - 1;
      walk(child, `${childLead}${last ? '└─ ' : '├─ '}`, `${childLead}${last ? '   ' : '│  '}`);
    });
  };
  walk(root, '', '');
  const titles = ['Tier', 'Node', 'Task', 'Specialist', 'Status', 'Elapsed', 'Attempts', 'Progress', 'Confidence', ...(usage ? ['Tokens', 'Cost'] : [])];
  if (!usage) for (const row of rows) row.querySelectorAll('.usage').forEach((cell) => cell.remove());
  return h('table', { class: 'tree' }, h('thead', {}, h('tr', {}, ...titles.map((title) => h('th', { scope: 'col' }, title)))), h('tbody', {}, ...rows));
}

function nodeRow(node: RunNode, rootId: string, lead: string, now: number): HTMLTableRowElement {
  const note = sourceNote(node);
  // Progress tells of work under way; once there is an outcome, it says more.
  const progress = node.progress !== null && node.source !== 'outcome' ? node.progress : null;
  return h(
    'tr',
    // The queue's own state is for debugging only: on the row, not in the text (docs/statuses.md).
    { 'data-node-id': node.id, 'data-tier': tierSlug(node.tier), 'data-status': node.status, 'data-queue-state': node.queue_state ?? '' },
    h('td', { class: 'tier' }, h('span', { class: 'lead' }, lead), tierSlug(node.tier)),
    h('td', { class: 'id', title: node.id }, shortId(node.id, rootId)),
    h('td', {}, node.task_type),
    h('td', {}, node.specialist ?? ''),
    h('td', { class: 'node-status', title: note }, statusBadge(node.status), note ? ' *' : '', node.rejection ? rejectionBadge(node.rejection) : null),
    h('td', { class: 'number elapsed' }, elapsed(node.started_at, node.finished_at, now)),
    h('td', { class: 'number attempts' }, node.attempts > 0 ? String(node.attempts) : ''),
    h('td', { class: 'progress' }, progress && progress.percent !== null ? h('progress', { max: 100, value: progress.percent }) : null, progress ? ` ${progressText(progress)}` : ''),
    h('td', { class: 'number' }, node.confidence === null ? '' : node.confidence.toFixed(2), node.cascade ? cascadeBadge(node.cascade) : null),
    h('td', { class: 'number usage' }, node.usage ? tokenCount(node.usage) : ''),
    h('td', { class: 'number usage' }, node.usage ? cost(node.usage) : ''),
  );
}

/** A handoff its agent turned down before starting (docs/protocol.md#explicit-rejection): marked apart from a failure, its reason on hover. */
function rejectionBadge(rejection: NonNullable<RunNode['rejection']>): HTMLSpanElement {
  return h('span', { class: 'rejection', 'data-rejection': '', title: rejection.reason ?? 'rejected before it started' }, ' ✖ rejected');
}

const CASCADE_WORDS = { low_confidence: '⚠ low confidence', needs_review: '◆ needs review', rejected: '✖ rejected' } as const;

/** The confidence cascade's signal on a node (docs/protocol.md#confidence-cascade), with who checked it. */
function cascadeBadge(cascade: NonNullable<RunNode['cascade']>): HTMLSpanElement {
  return h('span', { class: `cascade cascade-${cascade.signal}`, 'data-cascade': cascade.signal, title: `checked by ${tierSlug(cascade.checked_by)}` }, ` ${CASCADE_WORDS[cascade.signal]}`);
}
