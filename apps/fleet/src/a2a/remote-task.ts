import { Role, TaskState, type Message, type Part } from '@a2a-js/sdk';
import { clarificationsOf, confidenceSchema, DELEGATION_CHAIN_KEY, ERROR_TYPES, jsonObjectSchema, TierflowError, type DelegationChain } from '@tierflow/protocol';
import { receiverMarginMs } from '@tierflow/runtime/policy';
import { z } from 'zod';
import type { SpecialistArtifact, SpecialistInput, SpecialistResult } from '../specialist.js';

/** The `error_type`s an `a2a` specialist sets. */
export const A2A_ERROR_TYPES = {
  /** The remote task failed. */
  taskFailed: 'a2a_task_failed',
  /** The remote agent would not take the task. */
  taskRejected: 'a2a_task_rejected',
  /** The remote task was canceled on the remote side. */
  taskCanceled: 'a2a_task_canceled',
  /** The remote agent wants credentials this Fleet cannot give it mid-task. */
  authRequired: 'a2a_auth_required',
} as const;

/** What is read of a part: its content, as the SDK decoded it. */
const partSchema = z.object({
  content: z.discriminatedUnion('$case', [
    z.object({ $case: z.literal('text'), value: z.string() }),
    z.object({ $case: z.literal('data'), value: z.unknown() }),
    z.object({ $case: z.literal('url'), value: z.string() }),
    z.object({ $case: z.literal('raw'), value: z.instanceof(Uint8Array) }),
  ]),
  mediaType: z.string().default(''),
  filename: z.string().default(''),
});

/** What the specialist reads of a remote task: checked, as anything read off the network is. */
export const remoteTaskSchema = z.object({
  id: z.string().min(1),
  status: z.object({ state: z.enum(TaskState), message: z.object({ parts: z.array(partSchema) }).optional() }),
  artifacts: z.array(z.object({ artifactId: z.string(), name: z.string().default(''), parts: z.array(partSchema), metadata: jsonObjectSchema.optional() })).default([]),
  metadata: jsonObjectSchema.optional(),
});
export type RemoteTask = z.infer<typeof remoteTaskSchema>;
type RemotePart = z.infer<typeof partSchema>;

/** States where the remote task waits on nobody but its agent. */
const RUNNING: ReadonlySet<TaskState> = new Set([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_UNSPECIFIED]);

/** Whether the remote task is still at work: the specialist goes on following it. */
export function isRunning(task: RemoteTask): boolean {
  return RUNNING.has(task.status.state);
}

/** Whether the remote task has ended for good (nothing to cancel). */
export function isOver(task: RemoteTask): boolean {
  const state = task.status.state;
  return state === TaskState.TASK_STATE_COMPLETED || state === TaskState.TASK_STATE_FAILED || state === TaskState.TASK_STATE_CANCELED || state === TaskState.TASK_STATE_REJECTED;
}

/** The text of some parts, joined. */
export function textOf(parts: readonly RemotePart[]): string {
  return parts
    .flatMap((part) => (part.content.$case === 'text' ? [part.content.value] : []))
    .join('\n')
    .trim();
}

/** One remote part as a specialist artifact: text as it is, data as JSON, a file by its URL or its bytes in base64. */
function artifactOf(name: string, part: RemotePart, metadata: Record<string, unknown>): SpecialistArtifact {
  const media = part.mediaType === '' ? {} : { media_type: part.mediaType };
  const file = part.filename === '' ? {} : { filename: part.filename };
  switch (part.content.$case) {
    case 'text':
      return { artifact_type: name || 'text', content: part.content.value, metadata: { ...metadata, ...media } };
    case 'data':
      return { artifact_type: name || 'data', content: JSON.stringify(part.content.value ?? null), metadata: { ...metadata, media_type: 'application/json' } };
    case 'url':
      return { artifact_type: name || 'file', content: part.content.value, metadata: { ...metadata, ...media, ...file, content_is: 'url' } };
    case 'raw':
      return { artifact_type: name || 'file', content: Buffer.from(part.content.value).toString('base64'), metadata: { ...metadata, ...media, ...file, content_is: 'base64' } };
  }
}

/** The remote task's artifacts, one specialist artifact per part, in order, each naming the artifact it came from. */
export function remoteArtifacts(task: RemoteTask): SpecialistArtifact[] {
  return task.artifacts.flatMap((artifact) => artifact.parts.map((part) => artifactOf(artifact.name, part, { ...artifact.metadata, a2a_artifact_id: artifact.artifactId })));
}

const tierflowMetadataSchema = z.object({ tierflow: z.object({ confidence: confidenceSchema }) });

/**
 * What a finished (or asking) remote task means to the Fleet. Completed is success with its
 * artifacts; failed, rejected, canceled (on the remote side) and auth-required fail; a task that
 * asks for input is `needs_clarification` with the agent's question, for the run to ask a person.
 * A remote Tierflow says its confidence in the task's metadata; other agents get
 * `defaultConfidence`. Pure.
 */
export function remoteResult(task: RemoteTask, agent: string, defaultConfidence: number): SpecialistResult {
  const said = task.status.message ? textOf(task.status.message.parts) : '';
  const stated = tierflowMetadataSchema.safeParse(task.metadata ?? {});
  const confidence = stated.success ? stated.data.tierflow.confidence : defaultConfidence;
  const base = { confidence, artifacts: remoteArtifacts(task), resources_used: { a2a: { agent, task_id: task.id } } };
  const failed = (error_type: string, what: string, recoverable: boolean): SpecialistResult => ({
    ...base,
    status: 'failed',
    summary: `${agent}: task ${task.id} ${what}${said ? `: ${said}` : ''}`,
    error_type,
    error_detail: said || `the remote task ${what}`,
    recoverable,
  });
  switch (task.status.state) {
    case TaskState.TASK_STATE_COMPLETED:
      return { ...base, status: 'success', summary: said || `${agent} completed task ${task.id}` };
    case TaskState.TASK_STATE_INPUT_REQUIRED:
      return {
        ...base,
        status: 'needs_clarification',
        summary: `${agent} asks: ${said || 'for more input'}`,
        error_type: ERROR_TYPES.ambiguousRequest,
        error_detail: said || `${agent} asks for more input`,
        recoverable: true,
      };
    case TaskState.TASK_STATE_FAILED:
      return failed(A2A_ERROR_TYPES.taskFailed, 'failed', true);
    case TaskState.TASK_STATE_REJECTED:
      return failed(A2A_ERROR_TYPES.taskRejected, 'was rejected', false);
    case TaskState.TASK_STATE_CANCELED:
      return failed(A2A_ERROR_TYPES.taskCanceled, 'was canceled by the remote agent', false);
    case TaskState.TASK_STATE_AUTH_REQUIRED:
      return failed(A2A_ERROR_TYPES.authRequired, 'needs credentials this Fleet cannot give', false);
    case TaskState.TASK_STATE_SUBMITTED:
    case TaskState.TASK_STATE_WORKING:
    case TaskState.TASK_STATE_UNSPECIFIED:
    case TaskState.UNRECOGNIZED:
      throw TierflowError.permanent(`${agent}: task ${task.id} is still running (state ${TaskState[task.status.state]}): it has no result yet`, { code: 'a2a_no_result' });
  }
}

function textPart(value: string): Part {
  return { content: { $case: 'text', value }, mediaType: 'text/plain', filename: '', metadata: undefined };
}

function dataPart(value: Record<string, unknown>): Part {
  return { content: { $case: 'data', value }, mediaType: 'application/json', filename: '', metadata: undefined };
}

/**
 * The message that hands a subtask to a remote agent: the objective as text, with the answers to
 * questions the run asked before (so that an agent reading text alone has them), and an objective
 * file as a data part: the objective, the subtask's `task_data` and constraints, and the time left
 * before the delegation's deadline as `timeout_ms` (less the margin for the answer to come back),
 * which a remote Tierflow keeps. The message's metadata carries `chain`, the delegation chain a
 * remote Tierflow checks (docs/protocol.md#delegation-across-deployments); the subtask's own, in
 * its `task_data`, is left out of the file. Pure: `messageId` and `now` are given.
 */
export function remoteMessage(input: Pick<SpecialistInput, 'objective' | 'taskData' | 'constraints' | 'deadline'>, chain: DelegationChain, messageId: string, now: number): Message {
  const answers = clarificationsOf(input.taskData).map((clarification) => `Q: ${clarification.question}\nA: ${clarification.answer}`);
  const text = answers.length === 0 ? input.objective : `${input.objective}\n\nAnswers to earlier questions:\n${answers.join('\n')}`;
  const left = input.deadline === null ? null : input.deadline - now;
  const timeoutMs = left === null ? null : Math.floor(left - receiverMarginMs(left));
  const { [DELEGATION_CHAIN_KEY]: _sentAsMetadata, ...taskData } = input.taskData;
  const file = {
    objective: input.objective,
    ...(Object.keys(taskData).length > 0 ? { task_data: taskData } : {}),
    ...(input.constraints.length > 0 ? { constraints: input.constraints } : {}),
    ...(timeoutMs !== null && timeoutMs > 0 ? { timeout_ms: timeoutMs } : {}),
  };
  const metadata = { [DELEGATION_CHAIN_KEY]: { depth: chain.depth, visited: [...chain.visited] } };
  return { messageId, contextId: '', taskId: '', role: Role.ROLE_USER, parts: [textPart(text), dataPart(file)], metadata, extensions: [], referenceTaskIds: [] };
}
