import type { RunNode } from '../audit/run-tree-merge.js';

/** One event of a run as it goes (a line of `tierflow watch --json`, an event of the server's stream): a node that appeared or changed, or the run's end. */
export type WatchEvent =
  | {
      readonly type: 'node';
      readonly id: string;
      readonly tier: RunNode['tier'];
      readonly status: RunNode['status'];
      /** For debugging: BullMQ's state of the node's job (see RunNode). */
      readonly queue_state: string | null;
      readonly specialist: string | null;
      readonly attempts: number;
      readonly progress: RunNode['progress'];
      readonly usage: RunNode['usage'];
      /** At the root of a run waiting for a person: its questions, with the answers so far. */
      readonly questions?: RunNode['questions'];
    }
  | { readonly type: 'outcome'; readonly root_id: string; readonly status: string; readonly summary: string; readonly confidence: number };

export type NodeEvent = Extract<WatchEvent, { type: 'node' }>;

/**
 * The nodes of `tree` that are new or changed since `seen` (what each looked like last, by id),
 * depth first; `seen` is updated. Pure but for `seen`.
 */
export function nodeEvents(tree: RunNode, seen: Map<string, string>): NodeEvent[] {
  const events: NodeEvent[] = [];
  const walk = (node: RunNode): void => {
    const event: NodeEvent = {
      type: 'node',
      id: node.id,
      tier: node.tier,
      status: node.status,
      queue_state: node.queue_state,
      specialist: node.specialist,
      attempts: node.attempts,
      progress: node.progress,
      usage: node.usage,
      ...(node.questions ? { questions: node.questions } : {}),
    };
    const key = JSON.stringify(event);
    if (seen.get(node.id) !== key) {
      seen.set(node.id, key);
      events.push(event);
    }
    node.children.forEach(walk);
  };
  walk(tree);
  return events;
}

/** Whether the run is over: its root answered. */
export function finished(tree: RunNode): boolean {
  return tree.source === 'outcome';
}
