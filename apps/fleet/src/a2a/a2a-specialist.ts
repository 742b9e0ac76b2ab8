import { randomUUID } from 'node:crypto';
import { TaskState, type Message } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory, type Client } from '@a2a-js/sdk/client';
import { chainIn, DELEGATION_CHAIN_KEY, extendedChain, isTierflowError, TierflowError } from '@tierflow/protocol';
import { deploymentIdFromEnv } from '@tierflow/runtime';
import { z } from 'zod';
import { abortableDelay, abortError } from '../abortable-delay.js';
import { defineSpecialist, SpecialistThrottledError, type Specialist, type SpecialistInput, type SpecialistResult } from '../specialist.js';
import { a2aError, httpError } from './a2a-failure.js';
import { delegationRefusalOf, refusedResult } from './delegation-refusal.js';
import { isOver, isRunning, remoteMessage, remoteResult, remoteTaskSchema, type RemoteTask } from './remote-task.js';

/** Options of {@link a2aSpecialist}. */
export interface A2aSpecialistOptions {
  /** The specialist's name, what `specialist_hint` routes by, e.g. `remote-writer`. */
  readonly name: string;
  /** The agent's base URL: its card is at `/.well-known/agent-card.json` under it. */
  readonly url: string;
  /** The bearer token the agent asks for (its card's security scheme), if any. */
  readonly token?: string;
  /** The confidence of a completed task whose agent gives none (a remote Tierflow gives its own): 0.8 when left out. */
  readonly defaultConfidence?: number;
  readonly maxConcurrent?: number;
  /** How often the remote task is read while it runs. */
  readonly pollIntervalMs?: number;
  /**
   * This deployment's id, which the work handed over carries so that it cannot come back
   * (docs/protocol.md#delegation-across-deployments); read from the environment when left out
   * (`deploymentIdFromEnv`: TIERFLOW_DEPLOYMENT_ID, else derived from REDIS_URL and TIERFLOW_PREFIX).
   */
  readonly deploymentId?: string;
}

/** How often a remote task is read while it runs, by default. */
export const A2A_POLL_INTERVAL_MS = 500;
/** How long a cancellation sent to the remote agent may take to be sent. */
const CANCEL_TIMEOUT_MS = 5_000;
/** Reads of a running task that may fail in a row (a restart, a busy agent) before the subtask fails. */
const MAX_READ_FAILURES = 3;

interface Settings {
  readonly name: string;
  readonly url: string;
  readonly token: string | null;
  readonly defaultConfidence: number;
  readonly pollIntervalMs: number;
  readonly deploymentId: string;
}

/**
 * A specialist that hands its subtask to a remote Agent2Agent (A2A) agent, another Tierflow's
 * `tierflow serve` included, through the official `@a2a-js/sdk` client: the objective as text and
 * an objective file as data, then the task read every `pollIntervalMs` until it ends or asks.
 * Completed is success with the task's artifacts; a question comes back as
 * `needs_clarification`; a failure fails the subtask. Cancellation and the delegation's deadline
 * cancel the remote task, and a remote task never outlives the run that started it. Each message
 * carries the work's delegation chain, this deployment added, and a remote Tierflow's refusal of a
 * cycle or of work too deep fails the subtask for good (docs/protocol.md#delegation-across-deployments).
 *
 * ```ts
 * registry.register(a2aSpecialist({ name: 'remote-writer', url: 'https://agents.example.com', token: process.env.WRITER_TOKEN }));
 * ```
 */
export function a2aSpecialist(options: A2aSpecialistOptions): Specialist {
  const url = z.url({ protocol: /^https?$/ }).safeParse(options.url);
  if (!url.success) throw TierflowError.permanent(`url ${JSON.stringify(options.url)} must be an http(s) URL`, { code: 'invalid_specialist' });
  const defaultConfidence = options.defaultConfidence ?? 0.8;
  if (!(defaultConfidence >= 0 && defaultConfidence <= 1)) throw TierflowError.permanent(`defaultConfidence (${defaultConfidence}) must be from 0 to 1`, { code: 'invalid_specialist' });
  const settings: Settings = {
    name: options.name,
    url: url.data,
    token: options.token ?? null,
    defaultConfidence,
    pollIntervalMs: options.pollIntervalMs ?? A2A_POLL_INTERVAL_MS,
    deploymentId: options.deploymentId ?? deploymentIdFromEnv(process.env, { tier: 'fleet' }),
  };
  return defineSpecialist({
    name: options.name,
    version: '1.0.0',
    // The agent it reaches is what it is; the token is a secret, not part of its identity.
    config: { kind: 'a2a', url: settings.url },
    ...(options.maxConcurrent === undefined ? {} : { maxConcurrent: options.maxConcurrent }),
    run: (input) => delegate(settings, input),
  });
}

/** `fetch` with the agent's token, which turns an HTTP refusal into the error it calls for. */
function httpFor(settings: Settings): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    if (settings.token !== null) headers.set('authorization', `Bearer ${settings.token}`);
    const response = await fetch(input, { ...init, headers });
    if (response.ok) return response;
    const body = await response.text().catch(() => '');
    throw httpError(settings.name, input instanceof Request ? input.url : String(input), response.status, body);
  };
}

/** A client for the agent, from its card, read afresh for each subtask (an agent may move or change). */
async function connect(settings: Settings, signal: AbortSignal): Promise<Client> {
  const http = httpFor(settings);
  // Resolved against the URL as a directory, so that a card under a path is found there.
  const base = settings.url.endsWith('/') ? settings.url : `${settings.url}/`;
  const card = await new DefaultAgentCardResolver({ fetchImpl: (input, init) => http(input, { ...init, signal }) }).resolve(base);
  const transports = [new JsonRpcTransportFactory({ fetchImpl: http }), new RestTransportFactory({ fetchImpl: http })];
  return new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports })).createFromAgentCard(card);
}

/** Calls the agent: an abort stays the abort (the Fleet's reason), anything else becomes the error the Fleet acts on. */
async function call<T>(settings: Settings, signal: AbortSignal, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if (signal.aborted) throw abortError(signal);
    throw a2aError(settings.name, error);
  }
}

/** Whether reading the task again may work: a lost connection, a busy or restarting agent. */
function passing(error: Error): boolean {
  return error instanceof SpecialistThrottledError || (isTierflowError(error) && error.retryable);
}

function checked(settings: Settings, task: unknown): RemoteTask {
  const parsed = remoteTaskSchema.safeParse(task);
  if (parsed.success) return parsed.data;
  throw TierflowError.permanent(`${settings.name}: the agent answered with a task out of shape: ${parsed.error.issues[0]?.message ?? 'invalid'}`, { code: 'a2a_invalid_response' });
}

/** A direct reply instead of a task: the agent answered at once, and its parts are the result. */
function replyTask(message: Message): unknown {
  return { id: message.messageId, status: { state: TaskState.TASK_STATE_COMPLETED, message }, artifacts: [{ artifactId: 'reply', name: '', parts: message.parts }] };
}

async function delegate(settings: Settings, input: SpecialistInput): Promise<SpecialistResult> {
  const { signal } = input;
  const chain = chainIn(input.taskData);
  if (chain === null) throw TierflowError.permanent(`${settings.name}: task_data["${DELEGATION_CHAIN_KEY}"] must be { depth, visited }`, { code: 'invalid_objective' });
  const client = await call(settings, signal, () => connect(settings, signal));
  const message = remoteMessage(input, extendedChain(chain, settings.deploymentId), randomUUID(), Date.now());
  const configuration = { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: 0, returnImmediately: true };
  let sent: Awaited<ReturnType<Client['sendMessage']>>;
  try {
    sent = await client.sendMessage({ tenant: '', message, configuration, metadata: undefined }, { signal });
  } catch (error) {
    if (signal.aborted) throw abortError(signal);
    // A cycle or a chain too long: final, so a failed result, never a retry.
    const refusal = delegationRefusalOf(error);
    if (refusal) return refusedResult(settings.name, refusal);
    throw a2aError(settings.name, error);
  }
  let task = checked(settings, 'messageId' in sent ? replyTask(sent) : sent);
  try {
    let failures = 0;
    let said: TaskState | null = null;
    while (isRunning(task)) {
      if (task.status.state !== said) {
        said = task.status.state;
        input.progress({ note: `${settings.name}: remote task ${TaskState[said].replace('TASK_STATE_', '').toLowerCase()}` });
      }
      await abortableDelay(settings.pollIntervalMs, signal);
      const id = task.id;
      try {
        task = checked(settings, await call(settings, signal, () => client.getTask({ tenant: '', id, historyLength: 0 }, { signal })));
        failures = 0;
      } catch (error) {
        if (signal.aborted || !(error instanceof Error) || !passing(error) || ++failures >= MAX_READ_FAILURES) throw error;
      }
    }
    return remoteResult(task, settings.name, settings.defaultConfidence);
  } finally {
    // Cancelled, out of time, failed, or asking: the remote task ends with the work that started it.
    if (!isOver(task)) cancelRemote(client, task.id);
  }
}

/** Cancels a remote task without waiting for it: the Fleet answers at once, the agent hears of it within {@link CANCEL_TIMEOUT_MS} or not at all. */
function cancelRemote(client: Client, id: string): void {
  void client.cancelTask({ tenant: '', id, metadata: undefined }, { signal: AbortSignal.timeout(CANCEL_TIMEOUT_MS) }).catch(() => undefined);
}
