import type { OutcomeMessage, TierName } from '@tierflow/protocol';
import { buildOutcome, buildRootOutcome } from '../messages/messages.js';
import type { Assignment, OutcomeDraft } from '../policy/handler.js';
import type { StepState } from '../steps/step-store.js';

/**
 * Where a tier stands in the hierarchy, and what that changes in the engine: the root answers
 * for the whole run, the leaf runs specialists. Chosen once, when a worker is built, so the
 * engine itself never asks which tier it runs.
 */
export interface TierRole {
  readonly kind: 'root' | 'inner' | 'leaf';
  /** The outcome message a job of this tier answers with. */
  outcome(input: RoleOutcomeInput): OutcomeMessage;
  /** Whether the tier records the run's trace id when it delegates (the root does, for `tierflow status`). */
  readonly recordsRunTrace: boolean;
  /** Whether a job's span names the specialist the job asked for (the leaf's jobs run one). */
  readonly namesSpecialist: boolean;
}

export interface RoleOutcomeInput {
  readonly tier: TierName;
  readonly assignment: Assignment;
  readonly state: StepState | null;
  readonly draft: OutcomeDraft;
  readonly durationMs: number;
  readonly now: number;
}

const INNER: TierRole = {
  kind: 'inner',
  outcome: ({ tier, assignment, draft, durationMs, now }) => buildOutcome(tier, assignment.id, draft, durationMs, now),
  recordsRunTrace: false,
  namesSpecialist: false,
};

/**
 * The root is not a message, so its outcome is what the Monitor received from the Architect, as
 * the Monitor evaluated it: the Architect's answer to the last delegation, under the root's own
 * outcome id.
 */
const ROOT: TierRole = {
  kind: 'root',
  outcome: ({ assignment, state, draft, durationMs, now }) => buildRootOutcome(assignment.id, state?.children.at(-1)?.id ?? assignment.id, draft, durationMs, now),
  recordsRunTrace: true,
  namesSpecialist: false,
};

const LEAF: TierRole = { ...INNER, kind: 'leaf', namesSpecialist: true };

/** The role of a tier's workers: the Monitor is the root, the Fleet the leaf. */
export function roleOf(tier: TierName): TierRole {
  if (tier === 'PROGRESS_MONITOR') return ROOT;
  return tier === 'SPECIALIZED_FLEET' ? LEAF : INNER;
}
