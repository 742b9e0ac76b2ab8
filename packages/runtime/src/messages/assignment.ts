import { delegationPayloadSchema, formatValidationError, isDelegation, TierflowError, validate, validateWith, type TierName } from '@tierflow/protocol';
import type { Assignment } from '../policy/handler.js';
import { rootIdOf } from './ids.js';
import { checkObjectiveSize, checkSubtaskCount, InputTooLargeError, type InputLimits } from './input-limits.js';
import { ACCEPTANCE_CRITERIA_KEY, rootObjectiveSchema } from '../model/objective.js';

/** The task_type the Monitor gives a root objective. */
export const ROOT_TASK_TYPE = 'objective';

/** A job whose data is not something this tier can take: never retried. */
export class InvalidJobError extends TierflowError {
  override readonly name = 'InvalidJobError';
  constructor(message: string) {
    super(message, { code: 'invalid_message', retryable: false });
  }
}

/**
 * Reads a job's data as this tier's assignment, or throws {@link InvalidJobError} saying what is
 * wrong. With `limits`, a root objective over them, or a delegation whose plan has more subtasks
 * than they allow, is refused too (`input_too_large: …`): a client checks them before it
 * enqueues, but anyone who can write to the queue can skip the client.
 */
export function readAssignment(tier: TierName, data: unknown, limits?: InputLimits): Assignment {
  if (limits) checkSize(tier, data, limits);
  return tier === 'PROGRESS_MONITOR' ? readRoot(data) : readDelegation(tier, data);
}

// Measured before validation, so an oversized job costs its measuring and no more.
function checkSize(tier: TierName, data: unknown, limits: InputLimits): void {
  const field = (value: unknown, key: string): unknown => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined);
  try {
    if (tier === 'PROGRESS_MONITOR') checkObjectiveSize(field(data, 'objective'), limits);
    else checkSubtaskCount(field(field(data, 'payload'), 'task_data'), limits, 'the delegation');
  } catch (error) {
    if (error instanceof InputTooLargeError) throw new InvalidJobError(`${error.code}: ${error.message}`);
    throw error;
  }
}

function readRoot(data: unknown): Assignment {
  const root = validateWith(rootObjectiveSchema, data);
  if (!root.ok) throw new InvalidJobError(`not a root objective: ${root.errors.map(formatValidationError).join('; ')}`);
  const { objective } = root.value;
  const payload = delegationPayloadSchema.parse({
    task_type: ROOT_TASK_TYPE,
    objective: objective.objective,
    constraints: objective.constraints ?? [],
    priority: objective.priority,
    timeout_ms: objective.timeout_ms ?? null,
    deadline_hint: objective.deadline_hint ?? null,
    // The payload has no field for them: they go down in task_data, where the planners read them.
    task_data: objective.acceptance_criteria ? { ...objective.task_data, [ACCEPTANCE_CRITERIA_KEY]: objective.acceptance_criteria } : (objective.task_data ?? {}),
    ...(objective.error_policy ? { error_policy: objective.error_policy } : {}),
    ...(objective.thread_id ? { thread_id: objective.thread_id } : {}),
    ...(objective.handoff ? { handoff: objective.handoff } : {}),
  });
  return { id: root.value.root_id, rootId: root.value.root_id, payload, message: null, ...(objective.budget ? { budget: objective.budget } : {}) };
}

function readDelegation(tier: TierName, data: unknown): Assignment {
  const result = validate(data);
  if (!result.ok) throw new InvalidJobError(`invalid message: ${result.errors.map(formatValidationError).join('; ')}`);
  const message = result.value;
  if (!isDelegation(message)) throw new InvalidJobError(`message ${message.id} is not a delegation; a tier queue carries delegations only`);
  if (message.target_tier !== tier) {
    throw new InvalidJobError(`message ${message.id} is addressed to ${message.target_tier}, not to ${tier}`);
  }
  return { id: message.id, rootId: rootIdOf(message.id), payload: message.payload, message };
}
