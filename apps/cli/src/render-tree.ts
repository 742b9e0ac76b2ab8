import { TIER_SLUGS } from '@tierflow/protocol';
import { FINISHED_STATES, type RunNode } from '@tierflow/runtime';

/**
 * A run's tree as text, one node a line: `fleet  <id>  execute  sim  success  0.90  attempts 2`.
 * A status the node did not give itself says where it came from: `timeout  0.00  (recorded by
 * its parent; job still waiting)` for a child the watchdog gave up on.
 */
export function renderTree(node: RunNode): string {
  const lines: string[] = [];
  const walk = (current: RunNode, lead: string, childLead: string): void => {
    const parts = [
      TIER_SLUGS[current.tier].padEnd(10),
      current.id,
      current.task_type,
      current.specialist ?? '',
      current.status,
      current.confidence === null ? '' : current.confidence.toFixed(2),
      current.attempts > 1 ? `attempts ${current.attempts}` : '',
      noteOf(current),
    ].filter((part) => part !== '');
    lines.push(`${lead}${parts.join('  ')}`);
    current.children.forEach((child, index) => {
      const last = index === current.children.length - 1;
      walk(child, `${childLead}${last ? '└─ ' : '├─ '}`, `${childLead}${last ? '   ' : '│  '}`);
    });
  };
  walk(node, '', '');
  return `${lines.join('\n')}\n`;
}

/** Where a status came from, when not from the node itself (its outcome or its job's state). */
function noteOf(node: RunNode): string {
  switch (node.source) {
    case 'parent':
      return `(recorded by its parent; ${node.job_state === null ? 'no job retained' : FINISHED_STATES.has(node.job_state) ? `job ${node.job_state}` : `job still ${node.job_state}`})`;
    case 'cancellation':
      return '(cancellation sent; no job, no outcome on record)';
    case 'none':
      return '(delegation sent; no job, no outcome on record)';
    default:
      return '';
  }
}
