import type { RunNode } from '@tierflow/runtime';

const SHORT_TIER: Record<RunNode['tier'], string> = {
  PROGRESS_MONITOR: 'monitor',
  ABSTRACT_ARCHITECT: 'architect',
  ROUTING_DISPATCHER: 'dispatcher',
  SPECIALIZED_FLEET: 'fleet',
};

/** A run's tree as text, one node a line: `fleet  <id>  execute  sim  success  0.90  attempts 1`. */
export function renderTree(node: RunNode): string {
  const lines: string[] = [];
  const walk = (current: RunNode, lead: string, childLead: string): void => {
    const parts = [
      SHORT_TIER[current.tier].padEnd(10),
      current.id,
      current.task_type,
      current.specialist ?? '',
      current.status,
      current.confidence === null ? '' : current.confidence.toFixed(2),
      current.attempts > 1 ? `attempts ${current.attempts}` : '',
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
