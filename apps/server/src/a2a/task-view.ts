import { Role, TaskState, type Artifact, type Message, type Part, type Task } from '@a2a-js/sdk';
import { outcomeStatusSchema, type Artifact as TierflowArtifact, type OutcomePayload, type OutcomeStatus } from '@tierflow/protocol';
import { INPUT_REQUIRED, type RunNode, type RunQuestion } from '@tierflow/runtime';
import { UNFINISHED_STATUSES } from '@tierflow/runtime/admin';

/** States a task does not leave. */
const FINAL_STATES: ReadonlySet<TaskState> = new Set([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED]);

/** Whether a task in `state` is over. */
export function isFinal(state: TaskState): boolean {
  return FINAL_STATES.has(state);
}

/** Whether a task in `state` waits for the client (over, or asking): where a blocking send or a stream stops. */
export function isInterrupted(state: TaskState): boolean {
  return isFinal(state) || state === TaskState.TASK_STATE_INPUT_REQUIRED || state === TaskState.TASK_STATE_AUTH_REQUIRED;
}

/** An outcome status as a task state: every status but success and cancelled is a failure to the client. */
export function outcomeState(status: OutcomeStatus): TaskState {
  switch (status) {
    case 'success':
      return TaskState.TASK_STATE_COMPLETED;
    case 'cancelled':
      return TaskState.TASK_STATE_CANCELED;
    case 'partial':
    case 'failed':
    case 'blocked':
    case 'timeout':
    case 'needs_clarification':
    case 'throttled':
      return TaskState.TASK_STATE_FAILED;
  }
}

/** The questions of a waiting run that no answer has reached yet. */
function openQuestions(tree: RunNode): RunQuestion[] {
  return (tree.questions ?? []).filter((question) => question.answer === null);
}

/**
 * The state of a run as A2A sees it. A run that asks a person is input-required until every
 * question has an answer; from then on it is working again, though its Monitor may not have
 * picked the answers up yet. A root job that ended without a valid outcome (failed, unreadable,
 * gone) has failed; one cancelled before its Monitor answered is cancelled. Pure.
 */
export function runState(tree: RunNode, outcome: OutcomePayload | null): TaskState {
  if (outcome) return outcomeState(outcome.status);
  // The audit trail says how it ended, its job past retention.
  if (tree.source === 'outcome' || tree.source === 'parent') {
    const status = outcomeStatusSchema.safeParse(tree.status);
    return status.success ? outcomeState(status.data) : TaskState.TASK_STATE_FAILED;
  }
  if (tree.status === INPUT_REQUIRED) return openQuestions(tree).length > 0 ? TaskState.TASK_STATE_INPUT_REQUIRED : TaskState.TASK_STATE_WORKING;
  if (tree.source === 'cancellation') return TaskState.TASK_STATE_CANCELED;
  // A run waiting on blocked work goes on once unblocked: A2A has no state for it but working.
  if (tree.status === 'blocked' && (tree.blockers?.length ?? 0) > 0) return TaskState.TASK_STATE_WORKING;
  return UNFINISHED_STATUSES.has(tree.status) ? TaskState.TASK_STATE_WORKING : TaskState.TASK_STATE_FAILED;
}

export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined };
}

export function dataPart(data: Record<string, unknown>): Part {
  return { content: { $case: 'data', value: data }, mediaType: 'application/json', filename: '', metadata: undefined };
}

/** A message from the agent about task `taskId`; `key` tells it from the task's other messages, so that each reads back with the same id. */
export function agentMessage(taskId: string, key: string, parts: Part[]): Message {
  return { messageId: `${taskId}/${key}`, contextId: taskId, taskId, role: Role.ROLE_AGENT, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

/**
 * An outcome's artifacts as A2A artifacts, in order: inline content as a text part, content
 * stored in Beads as a data part naming its reference. The artifact type is the name.
 */
export function a2aArtifacts(artifacts: readonly TierflowArtifact[]): Artifact[] {
  return artifacts.map((artifact, index) => ({
    artifactId: `artifact-${index}`,
    name: artifact.artifact_type,
    description: '',
    parts: [artifact.inline_content === null ? dataPart({ content_ref: artifact.content_ref, artifact_type: artifact.artifact_type }) : textPart(artifact.inline_content)],
    metadata: Object.keys(artifact.metadata).length > 0 ? { ...artifact.metadata } : undefined,
    extensions: [],
  }));
}

/** What the agent says with a state: the questions of a waiting run, the summary of a finished one. */
function statusMessage(rootId: string, state: TaskState, tree: RunNode, outcome: OutcomePayload | null): Message | undefined {
  if (state === TaskState.TASK_STATE_INPUT_REQUIRED) {
    const questions = openQuestions(tree);
    return agentMessage(rootId, `questions/${questions.map((question) => question.id).join(',')}`, [
      textPart(questions.map((question) => question.question).join('\n')),
      dataPart({ questions: questions.map(({ id, question }) => ({ id, question })) }),
    ]);
  }
  if (outcome && isFinal(state)) {
    const { summary, error_detail: detail } = outcome;
    return agentMessage(rootId, 'outcome', [textPart(detail && !summary.includes(detail) ? `${summary}: ${detail}` : summary)]);
  }
  return undefined;
}

/**
 * A run (its tree, and its root's outcome once it has one) as an A2A task: the task id is the root id, and the run is its own context. Its artifacts
 * are the root outcome's; its metadata tells a Tierflow client the outcome's own status and
 * confidence, which A2A has no field for. History is not kept: the run is the record. Pure.
 */
export function runTask(rootId: string, tree: RunNode, outcome: OutcomePayload | null): Task {
  const state = runState(tree, outcome);
  return {
    id: rootId,
    contextId: rootId,
    status: { state, message: statusMessage(rootId, state, tree, outcome), timestamp: tree.finished_at ?? tree.started_at ?? undefined },
    artifacts: outcome ? a2aArtifacts(outcome.artifacts) : [],
    history: [],
    metadata: {
      tierflow: {
        root_id: rootId,
        status: tree.status,
        ...(outcome ? { confidence: outcome.confidence, error_type: outcome.error_type } : {}),
      },
    },
  };
}

/** The task of a run just enqueued: submitted, nothing read back yet. */
export function submittedTask(rootId: string, now: Date): Task {
  return {
    id: rootId,
    contextId: rootId,
    status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now.toISOString() },
    artifacts: [],
    history: [],
    metadata: { tierflow: { root_id: rootId, status: 'submitted' } },
  };
}
