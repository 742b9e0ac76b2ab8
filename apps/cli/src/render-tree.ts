import { TIER_SLUGS, type Usage } from '@tierflow/protocol';
import { progressText, runStatus, UNFINISHED_STATUSES } from '@tierflow/runtime/admin';
import { type NodeCascade, type NodeRejection, type RunNode } from '@tierflow/runtime';

/**
 * A run's tree as text, one node a line: `fleet  <id>  execute  sim  success  0.90  attempts 2`,
 * with `1 call  17 tokens  $0.0001` on a node whose work called models. Given `now`, each node
 * also shows how long it has run (the live view of `tierflow watch`).
 * A status the node did not give itself says where it came from: `timeout  0.00  (recorded by
 * its parent; job still queued)` for a child the watchdog gave up on. The words are those of
 * docs/statuses.md; with `debug`, each node also shows its job's BullMQ state: `[queue: prioritized]`.
 */
export function renderTree(node: RunNode, now?: number, { debug = false }: RenderOptions = {}): string {
  const lines: string[] = [];
  const walk = (current: RunNode, lead: string, childLead: string): void => {
    const parts = [
      TIER_SLUGS[current.tier].padEnd(10),
      current.id,
      current.task_type,
      current.specialist ?? '',
      current.status,
      debug ? queueText(current.queue_state) : '',
      current.confidence === null ? '' : current.confidence.toFixed(2),
      current.cascade === undefined ? '' : cascadeText(current.cascade),
      current.rejection === undefined ? '' : rejectionText(current.rejection),
      now === undefined ? '' : elapsedOf(current, now),
      current.usage === null ? '' : usageText(current.usage),
      // Progress tells of work under way; once there is an outcome, it says more.
      current.progress === null || current.source === 'outcome' ? '' : progressText(current.progress),
      current.attempts > 1 ? `attempts ${current.attempts}` : '',
      // A fork's node that did not run: it answered with its original's outcome.
      current.reused_from === undefined ? '' : `(reused ${current.reused_from})`,
      noteOf(current),
    ].filter((part) => part !== '');
    lines.push(`${lead}${parts.join('  ')}`);
    current.children.forEach((child, index) => {
      const last = index === current.children.length - 1;
      walk(child, `${childLead}${last ? '└─ ' : '├─ '}`, `${childLead}${last ? '   ' : '│  '}`);
    });
  };
  walk(node, '', '');
  return `${[...lines, ...questionLines(node), ...blockerLines(node)].join('\n')}\n`;
}

/** What a text view may be asked to add. */
export interface RenderOptions {
  /** Show BullMQ's state of each job (`[queue: prioritized]`), for debugging. */
  readonly debug?: boolean;
}

/** A job's BullMQ state as a debugging note: `[queue: waiting-children]`, `[queue: none]` once its job is gone. */
export function queueText(state: string | null | undefined): string {
  return `[queue: ${state ?? 'none'}]`;
}

/** A run waiting for a person: its questions, each with its id and any answer, and how to answer. */
function questionLines(root: RunNode): string[] {
  if (!root.questions || root.questions.length === 0) return [];
  const lines = [`waits for answers until ${root.waiting_until ?? '?'}:`];
  for (const question of root.questions) {
    lines.push(`  ${question.id}  (asked by ${TIER_SLUGS[question.tier]})  ${question.question}`);
    if (question.answer !== null) lines.push(`    answered: ${question.answer}`);
  }
  lines.push(`answer with: tierflow answer ${root.id} "<text>"${root.questions.length > 1 ? ' [--to <question id>]' : ''}`);
  return lines;
}

/** A run waiting on blocked work: its blockers, each with its id and any note, and how to unblock. */
function blockerLines(root: RunNode): string[] {
  if (!root.blockers || root.blockers.length === 0) return [];
  const lines = [`blocked since ${root.blocked_since ?? '?'}, waits until ${root.waiting_until ?? '?'}:`];
  for (const blocker of root.blockers) {
    lines.push(`  ${blocker.id}  (reported by ${TIER_SLUGS[blocker.tier]})  ${blocker.blocker}`);
    if (blocker.unblocked !== null) lines.push(`    unblocked${blocker.unblocked ? `: ${blocker.unblocked}` : ''}`);
  }
  lines.push(`unblock with: tierflow unblock ${root.blockers.length > 1 ? '<node id>' : root.id} [--note "<text>"]`);
  return lines;
}

/** The cascade's signal on a node, in the seed's words: `⚠ low confidence (checked by dispatcher)`. */
export function cascadeText(cascade: NodeCascade): string {
  return `${CASCADE_MARKS[cascade.signal]} (checked by ${TIER_SLUGS[cascade.checked_by]})`;
}

/** A handoff its agent turned down before starting, with why: `✖ rejected by its agent: I only review code`. */
export function rejectionText(rejection: NodeRejection): string {
  return `✖ rejected by its agent${rejection.reason === null ? '' : `: ${rejection.reason}`}`;
}

const CASCADE_MARKS = { low_confidence: '⚠ low confidence', needs_review: '◆ needs review', rejected: '✖ rejected' } as const;

/** How long a node has run, or ran: `2.4 s`; empty before it started. */
function elapsedOf(node: RunNode, now: number): string {
  if (node.started_at === null) return '';
  const ms = (node.finished_at === null ? now : Date.parse(node.finished_at)) - Date.parse(node.started_at);
  return `${(Math.max(0, ms) / 1000).toFixed(1)} s`;
}

/** `3 calls  2,410 tokens  $0.0042`: what the node's model calls used, its subtree's included. */
export function usageText(usage: Usage): string {
  const calls = `${usage.llm_calls} call${usage.llm_calls === 1 ? '' : 's'}`;
  const tokens = `${(usage.tokens_in + usage.tokens_out).toLocaleString('en-US')} tokens`;
  // Costs are kept to a millionth of a dollar: show that much, no trailing zeros.
  return usage.cost_usd > 0 ? `${calls}  ${tokens}  $${Number(usage.cost_usd.toFixed(6)).toString()}` : `${calls}  ${tokens}`;
}

/** Where a status came from, when not from the node itself (its outcome or its job's state). */
function noteOf(node: RunNode): string {
  switch (node.source) {
    case 'parent':
      return `(recorded by its parent; ${jobText(node.queue_state)})`;
    case 'cancellation':
      return '(cancellation sent; no job, no outcome on record)';
    case 'none':
      return '(delegation sent; no job, no outcome on record)';
    default:
      return '';
  }
}

/** Where the job of a node its parent answered for is, in the status words: `job still queued`, `job failed`. */
function jobText(state: string | null): string {
  if (state === null) return 'no job retained';
  const status = runStatus({ queueState: state, outcome: null });
  return UNFINISHED_STATUSES.has(status) ? `job still ${status}` : `job ${status}`;
}
