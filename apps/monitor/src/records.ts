import { fastSafeParse, type AggregationStrategy, type JsonObject, type OutcomeStatus } from '@tierflow/protocol';
import { DEFAULT_ROOT_TASK_TYPE, planSchema, rootTaskType } from '@tierflow/runtime/policy';

/** The task type bounds are learned for when the root's task_data names none. */
export const DEFAULT_BOUNDS_TASK_TYPE = DEFAULT_ROOT_TASK_TYPE;

/** The root's `task_data.task_type` when it is a non-empty string, else {@link DEFAULT_BOUNDS_TASK_TYPE} (the runtime's `rootTaskType`). */
export const taskTypeOf: (taskData: JsonObject) => string = rootTaskType;

/** The strategy of the root's plan, or null without a (valid) plan. */
export function strategyOf(taskData: JsonObject): AggregationStrategy | null {
  const parsed = fastSafeParse(planSchema, taskData.plan);
  return parsed.success ? parsed.data.strategy : null;
}

/** `system/runs/<root>`: how a run ended. */
export interface RunRecord {
  readonly status: OutcomeStatus;
  readonly confidence: number;
  /** From the Monitor taking the root to its report, resets included. */
  readonly duration_ms: number;
  readonly resets: number;
  /** ISO 8601. */
  readonly finished_at: string;
}

/** `history/runs/<root>`: the compressed record of a run (docs/protocol.md#beads-keys). */
export interface HistoryRecord {
  readonly status: OutcomeStatus;
  readonly confidence: number;
  readonly task_type: string;
  /** Only when the root came with a plan. */
  readonly strategy?: AggregationStrategy;
}

/** What a finished run is recorded from. */
export interface RunFacts {
  readonly status: OutcomeStatus;
  readonly confidence: number;
  readonly taskType: string;
  readonly strategy: AggregationStrategy | null;
  readonly resets: number;
  readonly startedAt: number;
  readonly now: number;
}

/** Both records of a finished run. Pure. */
export function runRecords(facts: RunFacts): { run: RunRecord; history: HistoryRecord } {
  const { status, confidence } = facts;
  return {
    run: { status, confidence, duration_ms: Math.max(0, facts.now - facts.startedAt), resets: facts.resets, finished_at: new Date(facts.now).toISOString() },
    history: { status, confidence, task_type: facts.taskType, ...(facts.strategy === null ? {} : { strategy: facts.strategy }) },
  };
}
