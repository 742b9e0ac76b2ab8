import {
  delegationPayloadSchema,
  formatValidationError,
  isDelegation,
  TierflowError,
  validate,
  validateWith,
  type TierName,
} from '@tierflow/protocol';
import type { Assignment } from './handler.js';
import { rootIdOf } from './ids.js';
import { rootObjectiveSchema } from './objective.js';

/** The task_type the Monitor gives a root objective. */
export const ROOT_TASK_TYPE = 'objective';

/** A job whose data is not something this tier can take: never retried. */
export class InvalidJobError extends TierflowError {
  override readonly name = 'InvalidJobError';
  constructor(message: string) {
    super(message, { code: 'invalid_message', retryable: false });
  }
}

/** Reads a job's data as this tier's assignment, or throws {@link InvalidJobError} saying what is wrong. */
export function readAssignment(tier: TierName, data: unknown): Assignment {
  return tier === 'PROGRESS_MONITOR' ? readRoot(data) : readDelegation(tier, data);
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
    task_data: objective.task_data ?? {},
  });
  return { id: root.value.root_id, rootId: root.value.root_id, payload, message: null };
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
