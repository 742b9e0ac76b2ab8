import type { JsonObject } from '@tierflow/protocol';
import type { Plan } from './objective.js';

/** The task_type of the one subtask made from an objective that came without a plan and without a string `task_data.task_type`. */
export const DEFAULT_TASK_TYPE = 'general';

/**
 * The plan of an objective that came without one: ONE subtask, the whole objective with its
 * `task_data` minus `plan`, under `all_success`; its task_type is `task_data.task_type` when that
 * is a non-empty string, else {@link DEFAULT_TASK_TYPE}. What the Dispatcher runs, and what the
 * Architect revises such an objective as. Pure.
 */
export function wholeObjectivePlan(payload: { readonly objective: string; readonly task_data: JsonObject }): Plan {
  const { plan: _plan, ...rest } = payload.task_data;
  const taskType = typeof rest.task_type === 'string' && rest.task_type !== '' ? rest.task_type : DEFAULT_TASK_TYPE;
  return { strategy: 'all_success', subtasks: [{ objective: payload.objective, task_type: taskType, task_data: rest }] };
}
