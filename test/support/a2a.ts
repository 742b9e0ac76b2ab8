import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Message, type Part, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { waitFor } from '@tierflow/testing';

export const text = (value: string): Part => ({ content: { $case: 'text', value }, mediaType: 'text/plain', filename: '', metadata: undefined });

export const data = (value: unknown): Part => ({ content: { $case: 'data', value }, mediaType: 'application/json', filename: '', metadata: undefined });

/** A user's message; with `taskId`, a follow-up to that task. */
export function userMessage(parts: Part[], taskId = ''): Message {
  return { messageId: randomUUID(), contextId: taskId, taskId, role: Role.ROLE_USER, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

/**
 * The official SDK's client for the agent at `url` (its card's base), over JSON-RPC. `polling`:
 * SendMessage returns at once rather than when the task is over; `token`: every request carries it.
 */
export async function a2aClient(url: string, options: { polling?: boolean; token?: string } = {}): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) =>
    fetch(input, options.token === undefined ? init : { ...init, headers: { ...(init?.headers as Record<string, string> | undefined), authorization: `Bearer ${options.token}` } });
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      clientConfig: { polling: options.polling ?? false },
    }),
  );
  return factory.createFromUrl(url);
}

/** Sends `message` and returns the task it started (or continued); fails the test on a bare message. */
export async function sendTask(client: Client, message: Message): Promise<Task> {
  const result = await client.sendMessage({ tenant: '', message, configuration: undefined, metadata: undefined });
  if ('messageId' in result) throw new Error(`expected a task, got a message: ${JSON.stringify(result)}`);
  return result;
}

/** Polls GetTask until the task is in `state`; returns it then. */
export function taskIn(client: Client, id: string, state: TaskState, timeoutMs = 20_000): Promise<Task> {
  return waitFor(
    async () => {
      const task = await client.getTask({ tenant: '', id, historyLength: undefined });
      return task.status?.state === state ? task : null;
    },
    { timeoutMs, intervalMs: 100, description: `task ${id} ${TaskState[state]}` },
  );
}

/** The text of a message or artifact's parts, joined. */
export function textOf(parts: readonly Part[] | undefined): string {
  return (parts ?? []).flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : [])).join('\n');
}
