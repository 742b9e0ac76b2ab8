import { ERROR_TYPES, TierflowError } from '@tierflow/protocol';

/** How much one objective may carry; a deployment raises them with the variables in {@link INPUT_LIMIT_ENV}. */
export interface InputLimits {
  /** The objective as JSON (and the objective file), in UTF-8 bytes. */
  readonly maxObjectiveBytes: number;
  /** Entries in its plan, `task_data.plan.subtasks`: each becomes a delegation, a job and a Fleet run. */
  readonly maxSubtasks: number;
}

export const INPUT_LIMIT_ENV = { maxObjectiveBytes: 'TIERFLOW_MAX_OBJECTIVE_BYTES', maxSubtasks: 'TIERFLOW_MAX_SUBTASKS' } as const satisfies Record<keyof InputLimits, string>;

/** 1 MiB and 256 subtasks: far beyond a hand-written objective, far below what hurts Redis or a worker. */
export const DEFAULT_INPUT_LIMITS: InputLimits = { maxObjectiveBytes: 1024 * 1024, maxSubtasks: 256 };

/** The code of {@link InputTooLargeError}. */

/** Input over one of a deployment's {@link InputLimits}: refused as it is, never retried. */
export class InputTooLargeError extends TierflowError {
  override readonly name = 'InputTooLargeError';

  constructor(
    message: string,
    /** Which limit it is over. */
    readonly limit: keyof InputLimits,
  ) {
    super(message, { code: ERROR_TYPES.inputTooLarge, retryable: false });
  }
}

/** `… more than the limit of 256 (TIERFLOW_MAX_SUBTASKS raises it)`. */
function overLimit(limit: keyof InputLimits, limits: InputLimits): string {
  const unit = limit === 'maxObjectiveBytes' ? ' bytes' : '';
  return `more than the limit of ${limits[limit]}${unit} (${INPUT_LIMIT_ENV[limit]} raises it)`;
}

/** `what` is more than `limits.maxObjectiveBytes` bytes long; `bytes` when known (a file), else left out (a stream cut off). */
export function tooManyBytes(what: string, bytes: number | null, limits: InputLimits): InputTooLargeError {
  return new InputTooLargeError(`${what} is ${bytes === null ? '' : `${bytes} bytes, `}${overLimit('maxObjectiveBytes', limits)}`, 'maxObjectiveBytes');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The length of `task_data.plan.subtasks`, whatever the rest looks like; 0 without one. */
export function subtaskCount(taskData: unknown): number {
  const plan = isRecord(taskData) ? taskData.plan : undefined;
  const subtasks = isRecord(plan) ? plan.subtasks : undefined;
  return Array.isArray(subtasks) ? subtasks.length : 0;
}

/**
 * Refuses a plan with more than `limits.maxSubtasks` subtasks. Counted before anything is
 * validated, so refusing ten thousand subtasks costs no more than counting them.
 *
 * @throws InputTooLargeError (code `input_too_large`).
 */
export function checkSubtaskCount(taskData: unknown, limits: InputLimits, what: string): void {
  const count = subtaskCount(taskData);
  if (count > limits.maxSubtasks) throw new InputTooLargeError(`${what} has ${count} subtasks, ${overLimit('maxSubtasks', limits)}`, 'maxSubtasks');
}

/**
 * Refuses an objective (as given, before validation) with too many subtasks, or too many bytes
 * as JSON. One that cannot even be measured (a cycle, a BigInt) is left to validation to refuse.
 *
 * @throws InputTooLargeError (code `input_too_large`) naming the size, the limit and its variable.
 */
export function checkObjectiveSize(objective: unknown, limits: InputLimits, what = 'the objective'): void {
  checkSubtaskCount(isRecord(objective) ? objective.task_data : undefined, limits, what);
  let bytes: number;
  try {
    bytes = Buffer.byteLength(JSON.stringify(objective) ?? '', 'utf8');
  } catch {
    return;
  }
  if (bytes > limits.maxObjectiveBytes) {
    throw new InputTooLargeError(`${what} is ${bytes} bytes as JSON, ${overLimit('maxObjectiveBytes', limits)}`, 'maxObjectiveBytes');
  }
}
