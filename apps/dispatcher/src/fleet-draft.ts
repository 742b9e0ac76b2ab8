import type { RoutingDecision } from '@tierflow/core';
import { COMPOSITION_KEY, DELEGATION_CHAIN_KEY, type AgentIdentity, type DelegationPayload, type ErrorPolicy, type UpstreamWork } from '@tierflow/protocol';
import type { DelegationDraft, Subtask } from '@tierflow/runtime';
import { DEFAULT_TASK_TYPE } from './plan-of.js';

/** What one Fleet delegation is made of. */
export interface FleetDraftInput {
  readonly subtask: Subtask;
  /** 1-based position in the plan; travels as `task_data.subtask_index` so outcomes map back to it. */
  readonly index: number;
  readonly total: number;
  readonly specialist: string;
  /** The Dispatcher's own delegation: priority, default constraints and the delegation chain (in its `task_data`) come from it. */
  readonly parent: Pick<DelegationPayload, 'priority' | 'constraints'> & { readonly task_data?: Readonly<Record<string, unknown>> };
  readonly fleetTimeoutMs: number;
  /** `beads:routing/<root>/task-graph`. */
  readonly taskGraphRef: string;
  /** The exact agent expected (docs/protocol.md#target-agents), when the registry or the plan names one. */
  readonly targetAgent?: AgentIdentity | undefined;
  /** The plan's error policy, which the subtask's own overrides field by field. */
  readonly planPolicy?: ErrorPolicy | undefined;
  /** Why the subtask is sent again after its work came back under the cascade's flag bound (`on_low_confidence: retry`). */
  readonly concern?: string | null | undefined;
  /** The work of the subtasks this one depends on (docs/protocol.md#subtask-dependencies): `task_data.upstream` when there is any. */
  readonly upstream?: readonly UpstreamWork[] | undefined;
  /** How `specialist` was chosen: the delegation's `routing`, for its span, `tierflow inspect` and the dashboard. */
  readonly routing?: RoutingDecision | null | undefined;
}

/**
 * The delegation of one subtask to the Fleet (the example in docs/protocol.md#envelope). A subtask
 * without its own constraints inherits the parent's. Pure.
 */
export function fleetDraft(input: FleetDraftInput): DelegationDraft {
  const { subtask, index, total, specialist, parent, fleetTimeoutMs, taskGraphRef, targetAgent, planPolicy, concern, upstream, routing } = input;
  const policy = { ...planPolicy, ...subtask.error_policy };
  const taskType = subtask.task_type ?? DEFAULT_TASK_TYPE;
  // The chain of work that came from another deployment goes to every leaf, whatever the plan
  // says, so that an a2a specialist extends it (docs/protocol.md#delegation-across-deployments).
  const { [DELEGATION_CHAIN_KEY]: _planned, ...own } = subtask.task_data ?? {};
  const chain = parent.task_data?.[DELEGATION_CHAIN_KEY];
  return {
    task_type: taskType,
    objective: subtask.objective,
    constraints: [...(subtask.constraints ?? parent.constraints)],
    priority: parent.priority,
    timeout_ms: subtask.timeout_ms ?? fleetTimeoutMs,
    specialist_hint: specialist,
    context_refs: [taskGraphRef],
    task_data: {
      ...own,
      ...(chain === undefined ? {} : { [DELEGATION_CHAIN_KEY]: chain }),
      // The task type the leaf is learned under, where the runtime looks for it (docs/operations.md#routing-modes).
      task_type: taskType,
      subtask_index: index,
      subtask_total: total,
      ...(concern ? { concern } : {}),
      // docs/protocol.md#attestations: the archetype the specialist works as, which the delegation's attestation vouches for.
      ...(subtask.composition ? { [COMPOSITION_KEY]: subtask.composition } : {}),
      ...(upstream && upstream.length > 0 ? { upstream: upstream.map((work) => ({ ...work, artifacts: [...work.artifacts] })) } : {}),
    },
    // docs/protocol.md#expected-output-schemas: the Fleet's outcome is held to the subtask's
    // schema, when it names one.
    ...(subtask.expected_output_schema ? { expected_output_schema: subtask.expected_output_schema } : {}),
    ...(targetAgent ? { target_agent: targetAgent } : {}),
    // docs/protocol.md#error-policies: what the Fleet, and this Dispatcher reading its outcome, do when it goes wrong.
    ...(Object.keys(policy).length > 0 ? { error_policy: policy } : {}),
    // docs/protocol.md#handoff-metadata: the runtime puts the parent's constraints under these.
    ...(subtask.handoff ? { handoff: subtask.handoff } : {}),
    ...(routing ? { routing } : {}),
  };
}
