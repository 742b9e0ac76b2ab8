import type { AggregationStrategy, OutcomeStatus } from '@tierflow/protocol';
import { dependencyEdges } from '@tierflow/runtime/policy';
import { type Plan } from '@tierflow/runtime';
import type { DispatchMemo } from './dispatch-memo.js';
import { DEFAULT_TASK_TYPE } from './plan-of.js';

/** A node's status: pending until its subtask's latest outcome is in. */
export type TaskNodeStatus = OutcomeStatus | 'pending';

/** One subtask in `routing/<root>/task-graph`. */
export interface TaskNode {
  readonly index: number;
  readonly objective: string;
  readonly task_type: string;
  readonly status: TaskNodeStatus;
}

/** `routing/<root>/task-graph` (docs/protocol.md#beads-keys): the decomposed subtasks as a DAG. */
export interface TaskGraph {
  readonly strategy: AggregationStrategy;
  readonly nodes: readonly TaskNode[];
  /** `[from, to]` subtask indices: the work of `from` is the input of `to` (its `depends_on`). None for a plan whose subtasks all run at once. */
  readonly edges: readonly (readonly [number, number])[];
}

/** The task graph of a plan, every node with the status `statuses` gives it (pending otherwise). Pure. */
export function taskGraphOf(plan: Plan, statuses: ReadonlyMap<number, TaskNodeStatus> = new Map()): TaskGraph {
  return {
    strategy: plan.strategy,
    nodes: plan.subtasks.map((subtask, i) => ({
      index: i + 1,
      objective: subtask.objective,
      task_type: subtask.task_type ?? DEFAULT_TASK_TYPE,
      status: statuses.get(i + 1) ?? 'pending',
    })),
    edges: dependencyEdges(plan),
  };
}

/** Each subtask's latest status, from the memo. */
export function statusesOf(memo: DispatchMemo): Map<number, TaskNodeStatus> {
  return new Map(memo.subtasks.map((subtask) => [subtask.index, subtask.result?.status ?? 'pending']));
}

/** `routing/<root>/assignments` (docs/protocol.md#beads-keys): subtask index → specialist. */
export function assignmentsOf(memo: DispatchMemo): Record<string, string> {
  return Object.fromEntries(memo.subtasks.map((subtask) => [String(subtask.index), subtask.specialist]));
}
