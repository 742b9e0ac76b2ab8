import { setTimeout as delay } from 'node:timers/promises';
import { TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { finished } from '@tierflow/runtime/admin';
import { type TierflowClient } from '@tierflow/runtime';
import { isFinal, isInterrupted, runTask } from './task-view.js';

/** A run as a task now, read from Redis alone; null for a run this deployment does not know (or no longer keeps). */
export async function readTask(client: TierflowClient, rootId: string): Promise<Task | null> {
  const tree = await client.tree(rootId);
  if (!tree) return null;
  const outcome = finished(tree) ? await client.result(rootId) : null;
  return runTask(rootId, tree, outcome?.payload ?? null);
}

export function stateOf(task: Task): TaskState {
  return task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
}

export interface FollowOptions {
  /** How often the run is read again. */
  readonly intervalMs: number;
  /** Stops the following (an AbortError), e.g. when the client goes away. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * The task of a run each time it changes, first as it stands, until it is over or waits for the
 * client. The run is read every `intervalMs`, as the runs API's event stream does, so any server
 * can follow any run: nothing of it is held in this process.
 *
 * @throws TaskNotFoundError for a run the deployment does not know.
 */
export async function* followRun(client: TierflowClient, rootId: string, options: FollowOptions): AsyncGenerator<Task, void, undefined> {
  let seen = '';
  for (;;) {
    const task = await readTask(client, rootId);
    if (!task) throw new TaskNotFoundError(`no task ${rootId} (unknown, or past retention)`);
    // A new question is a new message, in the same state.
    const key = `${stateOf(task)} ${task.status?.message?.messageId ?? ''}`;
    if (key !== seen) {
      seen = key;
      yield task;
    }
    if (isInterrupted(stateOf(task))) return;
    await delay(options.intervalMs, undefined, options.signal ? { signal: options.signal } : {});
  }
}

/** What a stream says of a task that changed: its status, after its artifacts once it is over. Pure. */
export function streamUpdates(task: Task): StreamResponse[] {
  const { id: taskId, contextId } = task;
  const artifacts: StreamResponse[] = isFinal(stateOf(task))
    ? task.artifacts.map((artifact) => ({ payload: { $case: 'artifactUpdate', value: { taskId, contextId, artifact, append: false, lastChunk: true, metadata: undefined } } }))
    : [];
  return [...artifacts, { payload: { $case: 'statusUpdate', value: { taskId, contextId, status: task.status, metadata: task.metadata } } }];
}
