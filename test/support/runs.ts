import type { OutcomeMessage } from '@tierflow/protocol';
import type { ObjectiveFile, RunNode, TierflowClient } from '@tierflow/runtime';

/** An objective whose plan runs one `sim` subtask per entry, with the sim's script; `extra` goes on every subtask. */
export function simPlan(strategy: string, sims: readonly Record<string, unknown>[], extra: Record<string, unknown> = {}): ObjectiveFile {
  return {
    objective: `test ${strategy}`,
    task_data: {
      plan: {
        strategy: strategy as 'all_success',
        subtasks: sims.map((sim, index) => ({ objective: `subtask ${index + 1}`, task_data: { sim }, ...extra })),
      },
    },
  };
}

/** The nodes of a run's tree, depth first, of one tier or all. */
export function treeNodes(tree: RunNode, tier?: RunNode['tier']): RunNode[] {
  const found: RunNode[] = [];
  const walk = (node: RunNode): void => {
    if (!tier || node.tier === tier) found.push(node);
    node.children.forEach(walk);
  };
  walk(tree);
  return found;
}

/** A run of `objective` to its end: its root id, outcome and tree. */
export async function runToEnd(client: TierflowClient, objective: ObjectiveFile, timeoutMs = 20_000): Promise<{ id: string; outcome: OutcomeMessage; tree: RunNode }> {
  const id = await client.enqueue(objective);
  const outcome = await client.waitForResult(id, { timeoutMs });
  const tree = await client.tree(id);
  if (!tree) throw new Error(`no tree for ${id}`);
  return { id, outcome, tree };
}
