import {
  TaskState,
  type AgentCard,
  type CancelTaskRequest,
  type GetTaskRequest,
  type ListTasksResponse,
  type SendMessageRequest,
  type StreamResponse,
  type SubscribeToTaskRequest,
  type Task,
} from '@a2a-js/sdk';
import { A2AError, PushNotificationNotSupportedError, RequestMalformedError, TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { errorKindOf, isTierflowError } from '@tierflow/protocol';
import type { TierflowClient, TierLogger } from '@tierflow/runtime';
import { a2aErrorOf } from './a2a-errors.js';
import { checkChain, objectiveFileOf, readMessage, type MessageInput } from './message-input.js';
import { followRun, readTask, stateOf, streamUpdates } from './run-follow.js';
import { isFinal, submittedTask } from './task-view.js';

/** Where the transport puts the request's abort signal in the call context: a client that goes away stops its waits. */
export const REQUEST_SIGNAL = 'tierflow.request-signal';

/** How long CancelTask waits for the run to answer `cancelled` before it returns the task as it stands. */
export const CANCEL_WAIT_MS = 10_000;

export interface RunRequestHandlerDeps {
  readonly client: TierflowClient;
  /** The agent card, as this request's origin sees it. */
  readonly card: () => Promise<AgentCard>;
  /** How often a wait or a stream reads the run again. */
  readonly intervalMs: number;
  readonly log: TierLogger;
  /** This deployment's id, which a message's delegation chain must not name already. */
  readonly deploymentId: string;
  /** How many deployments a message's work may have crossed (docs/protocol.md#delegation-across-deployments). */
  readonly maxDepth: number;
}

/**
 * The A2A methods over a deployment's runs: a task is a run, its id the root id. Every answer is
 * read from Redis when asked for (the run's tree and outcome), never from this process, so that
 * any server behind a load balancer answers for any task. It stands in for the SDK's
 * DefaultRequestHandler, whose task store, event buses and executors live in one process.
 */
export class RunRequestHandler implements A2ARequestHandler {
  constructor(private readonly deps: RunRequestHandlerDeps) {}

  getAgentCard(): Promise<AgentCard> {
    return this.deps.card();
  }

  getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    return Promise.reject(new UnsupportedOperationError('this agent has no extended card'));
  }

  /** A new objective (or an answer to a waiting task); waits until the task is over or asks, unless `returnImmediately`. */
  sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Task> {
    return this.guard('SendMessage', context, async () => {
      const task = await this.start(params);
      if (params.configuration?.returnImmediately) return task;
      let last = task;
      for await (const snapshot of this.follow(task.id, context)) last = snapshot;
      return last;
    });
  }

  /** The task as it starts, then a status update each time it changes (its artifacts before the last), until it is over or asks. */
  async *sendMessageStream(params: SendMessageRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    const task = await this.guard('SendStreamingMessage', context, () => this.start(params));
    yield { payload: { $case: 'task', value: task } };
    yield* this.updates(task, context);
  }

  getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    return this.guard('GetTask', context, () => this.read(params.id));
  }

  /**
   * Cancels the run and waits (up to {@link CANCEL_WAIT_MS}) for it to answer: the task is then
   * canceled, or, if the run takes longer to stop, still working with its cancellation under way.
   */
  cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    return this.guard('CancelTask', context, async () => {
      const task = await this.read(params.id);
      if (stateOf(task) === TaskState.TASK_STATE_CANCELED) return task;
      if (isFinal(stateOf(task))) throw new TaskNotCancelableError(`task ${task.id} is over: it cannot be canceled`);
      const report = await this.deps.client.cancel(task.id, { reason: 'cancelled over A2A' });
      if (report.outcome === 'unknown') throw new TaskNotFoundError(`no task ${task.id}`);
      const waited = AbortSignal.timeout(CANCEL_WAIT_MS);
      let last = task;
      try {
        for await (const snapshot of followRun(this.deps.client, task.id, { intervalMs: this.deps.intervalMs, signal: AbortSignal.any([waited, signalOf(context)]) })) last = snapshot;
      } catch (error) {
        if (!waited.aborted) throw error;
      }
      if (isFinal(stateOf(last)) && stateOf(last) !== TaskState.TASK_STATE_CANCELED) throw new TaskNotCancelableError(`task ${task.id} ended before the cancellation reached it`);
      return last;
    });
  }

  /** The task as it stands, then its changes, as sendMessageStream sends them. */
  async *resubscribe(params: SubscribeToTaskRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    const task = await this.guard('SubscribeToTask', context, () => this.read(params.id));
    if (isFinal(stateOf(task))) throw new UnsupportedOperationError(`task ${task.id} is over: there is nothing to subscribe to`);
    yield { payload: { $case: 'task', value: task } };
    yield* this.updates(task, context);
  }

  listTasks(): Promise<ListTasksResponse> {
    return Promise.reject(new UnsupportedOperationError('tasks are not listed here: the runs API lists runs (GET /api/runs)'));
  }

  createTaskPushNotificationConfig(): Promise<never> {
    return Promise.reject(new PushNotificationNotSupportedError());
  }

  getTaskPushNotificationConfig(): Promise<never> {
    return Promise.reject(new PushNotificationNotSupportedError());
  }

  listTaskPushNotificationConfigs(): Promise<never> {
    return Promise.reject(new PushNotificationNotSupportedError());
  }

  deleteTaskPushNotificationConfig(): Promise<void> {
    return Promise.reject(new PushNotificationNotSupportedError());
  }

  /** Enqueues the objective a new message gives, or answers the questions of the task it names. */
  private async start(params: SendMessageRequest): Promise<Task> {
    const input = readMessage(params.message);
    const taskId = params.message?.taskId;
    return taskId ? this.answer(taskId, input) : this.enqueue(input);
  }

  private async enqueue(input: MessageInput): Promise<Task> {
    checkChain(input, this.deps.deploymentId, this.deps.maxDepth);
    const rootId = await this.deps.client.enqueue(objectiveFileOf(input));
    return submittedTask(rootId, new Date());
  }

  /** A follow-up message to a task that asks: its text answers every open question, and the run goes on. */
  private async answer(taskId: string, input: MessageInput): Promise<Task> {
    const task = await this.read(taskId);
    if (isFinal(stateOf(task))) throw new UnsupportedOperationError(`task ${taskId} is over: it takes no more messages`);
    if (stateOf(task) !== TaskState.TASK_STATE_INPUT_REQUIRED) throw new UnsupportedOperationError(`task ${taskId} is not waiting for input`);
    if (input.text === null) throw new RequestMalformedError('an answer needs a text part');
    const text = input.text;
    await this.deps.client.answer(taskId, text);
    return { ...task, status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: new Date().toISOString() } };
  }

  private async read(taskId: string): Promise<Task> {
    if (taskId.trim() === '') throw new RequestMalformedError('the request names no task');
    const task = await readTask(this.deps.client, taskId);
    if (!task) throw new TaskNotFoundError(`no task ${taskId} (unknown, or past retention)`);
    return task;
  }

  private follow(taskId: string, context: ServerCallContext): AsyncGenerator<Task, void, undefined> {
    return followRun(this.deps.client, taskId, { intervalMs: this.deps.intervalMs, signal: signalOf(context) });
  }

  /** The changes of `from`'s run as stream responses; a read that says what `from` already said is left out. */
  private async *updates(from: Task, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    let said = sayingOf(from);
    const follow = this.follow(from.id, context);
    try {
      for (;;) {
        const next = await this.guard('a stream', context, () => follow.next());
        if (next.done) return;
        if (sayingOf(next.value) === said) continue;
        said = sayingOf(next.value);
        yield* streamUpdates(next.value);
      }
    } finally {
      await follow.return();
    }
  }

  /**
   * Runs one method: A2A errors go to the client as they are, the runtime's refusals (a bad
   * objective, an answer to nothing) as the A2A errors their kinds map to; anything else is logged
   * and answered with a plain internal error, so that nothing of the server leaks.
   */
  private async guard<T>(method: string, context: ServerCallContext, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof A2AError || signalOf(context).aborted) throw error;
      const As = isTierflowError(error) ? a2aErrorOf(error.code, errorKindOf(error)) : null;
      if (As) throw new As(error instanceof Error ? error.message : String(error));
      this.deps.log.warn('an A2A request failed', { method, error: error instanceof Error ? error.message : String(error) });
      throw new Error('the server could not answer this request', { cause: error });
    }
  }
}

/** What a task says to a client: its state and the message with it. */
function sayingOf(task: Task): string {
  return `${stateOf(task)} ${task.status?.message?.messageId ?? ''}`;
}

function signalOf(context: ServerCallContext): AbortSignal {
  const signal = context.state.get(REQUEST_SIGNAL);
  return signal instanceof AbortSignal ? signal : new AbortController().signal;
}
