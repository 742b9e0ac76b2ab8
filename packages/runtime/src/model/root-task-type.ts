import type { JsonObject } from '@tierflow/protocol';

/** The task type a run is learned under when its root's task_data names none. */
export const DEFAULT_ROOT_TASK_TYPE = 'objective';

/**
 * The task type of a run as a whole: the root's `task_data.task_type` when it is a non-empty
 * string, else {@link DEFAULT_ROOT_TASK_TYPE}. The Monitor learns a run's bounds and its revisions
 * under it, and the Architect, handed the root's task_data, reads its revisions' record by it. Pure.
 */
export function rootTaskType(taskData: JsonObject): string {
  return typeof taskData.task_type === 'string' && taskData.task_type !== '' ? taskData.task_type : DEFAULT_ROOT_TASK_TYPE;
}
