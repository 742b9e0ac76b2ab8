import { TaskState, type StreamResponse } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { waitFor } from '@tierflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { a2aClient, data, sendTask, taskIn, text, textOf, userMessage } from '../support/a2a.js';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { serveDeployment, type Served } from '../support/served.js';
import { simPlan, treeNodes } from '../support/runs.js';

// `tierflow serve`'s A2A endpoint over four worker processes on a private Redis, driven by the
// official A2A SDK's client as any other agent would drive it.

const QUIET = { TIERFLOW_LOG: 'silent' };
let deployment: Deployment;
let served: Served;
let url: string;
/** SendMessage returns at once: the test polls GetTask. */
let polling: Client;
/** SendMessage returns once the task is over or asks. */
let blocking: Client;

beforeAll(async () => {
  deployment = await startDeployment('a2a', QUIET);
  served = await serveDeployment(deployment.runtime);
  url = served.url;
  polling = await a2aClient(url, { polling: true });
  blocking = await a2aClient(url);
}, 60_000);

afterAll(async () => {
  await served?.close();
  await deployment?.stop();
});

describe('the A2A endpoint', () => {
  it('describes the deployment in its agent card: the JSON-RPC interface, streaming, and a skill per specialist', async () => {
    const card = await polling.getAgentCard();
    expect(card.name).toBe('Tierflow');
    expect(card.supportedInterfaces).toEqual([expect.objectContaining({ url: `${url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' })]);
    expect(card.capabilities?.streaming).toBe(true);
    expect(card.skills.map((skill) => skill.id)).toContain('sim');
    expect(card.securitySchemes ?? {}).toEqual({});
  });

  it('runs the objective a message gives: the task is the run, and ends completed with the outcome’s artifacts', async () => {
    const sent = await sendTask(polling, userMessage([text('write twenty bytes'), data(simPlan('all_success', [{ output_bytes: 20 }]))]));
    expect(sent.status?.state).toBe(TaskState.TASK_STATE_SUBMITTED);
    const done = await taskIn(polling, sent.id, TaskState.TASK_STATE_COMPLETED);
    // The root's artifacts: the aggregation's summary, and the sim's output.
    expect(done.artifacts.map((artifact) => artifact.name)).toEqual(['aggregation_summary', 'text']);
    expect(textOf(done.artifacts[1]?.parts)).toBe('tierflow sim output.');
    expect(done.metadata).toMatchObject({ tierflow: { root_id: sent.id, status: 'success' } });
    // The task id is the root id, and the message's text the objective.
    expect(await deployment.client.runs({ limit: 50 })).toContainEqual(expect.objectContaining({ root_id: sent.id, objective: 'write twenty bytes', status: 'success' }));
  });

  it('streams a message: the task, then working, the artifacts, and completed', async () => {
    const events: StreamResponse[] = [];
    for await (const event of polling.sendMessageStream({
      tenant: '',
      message: userMessage([text('stream it'), data(simPlan('all_success', [{ delay_ms: 300, output_bytes: 10 }]))]),
      configuration: undefined,
      metadata: undefined,
    })) {
      events.push(event);
    }
    const kinds = events.map((event) => event.payload?.$case);
    expect(kinds[0]).toBe('task');
    const states = events.flatMap((event) => (event.payload?.$case === 'statusUpdate' ? [event.payload.value.status?.state] : []));
    expect(states).toEqual([TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_COMPLETED]);
    expect(kinds.slice(-2)).toEqual(['artifactUpdate', 'statusUpdate']);
  });

  it('cancels a running task: the run is cancelled, and the task canceled', async () => {
    const sent = await sendTask(polling, userMessage([text('take long'), data(simPlan('all_success', [{ delay_ms: 20_000 }]))]));
    await waitFor(async () => treeNodes((await deployment.client.tree(sent.id))!, 'SPECIALIZED_FLEET').some((node) => node.status === 'running'), {
      description: 'the Fleet at work',
      timeoutMs: 15_000,
    });
    // Any server can take up a task's stream: it starts with the task as it stands.
    for await (const event of polling.resubscribeTask({ tenant: '', id: sent.id })) {
      expect(event.payload).toMatchObject({ $case: 'task', value: { id: sent.id, status: { state: TaskState.TASK_STATE_WORKING } } });
      break;
    }
    const cancelled = await polling.cancelTask({ tenant: '', id: sent.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await deployment.client.result(sent.id))?.payload.status).toBe('cancelled');
    await expect(polling.cancelTask({ tenant: '', id: sent.id, metadata: undefined })).resolves.toMatchObject({ status: { state: TaskState.TASK_STATE_CANCELED } });
  });

  it('asks for input when the run asks a person, and a follow-up message answers it: the run goes on to completed', async () => {
    const sent = await sendTask(polling, userMessage([text('ask first'), data(simPlan('all_success', [{ ask: 'Which region?' }]))]));
    const asking = await taskIn(polling, sent.id, TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(asking.status?.message?.parts)).toBe('Which region?');
    // A blocking send: it returns once the run is over.
    const answered = await sendTask(blocking, userMessage([text('eu-west')], sent.id));
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answered.artifacts.map((artifact) => textOf(artifact.parts))).toContain('eu-west');
  });

  it('refuses what it cannot take, with the A2A errors for it', async () => {
    await expect(sendTask(polling, userMessage([text('x'), data({ task_data: { plan: { strategy: 'sometimes', subtasks: [] } } })]))).rejects.toThrow(/invalid objective/);
    await expect(sendTask(polling, userMessage([data({ constraints: [] })]))).rejects.toThrow(/needs a text part/);
    await expect(polling.getTask({ tenant: '', id: 'no-such-task', historyLength: undefined })).rejects.toMatchObject({ name: 'TaskNotFoundError' });
    const done = await sendTask(blocking, userMessage([text('quick'), data(simPlan('all_success', [{}]))]));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    await expect(sendTask(polling, userMessage([text('more')], done.id))).rejects.toMatchObject({ name: 'UnsupportedOperationError' });
    await expect(polling.cancelTask({ tenant: '', id: done.id, metadata: undefined })).rejects.toMatchObject({ name: 'TaskNotCancelableError' });
  });
});

describe('A2A access', () => {
  const TOKEN = 'a-token-of-sixteen-chars-or-more';
  let guarded: Served;
  let guardedUrl: string;

  beforeAll(async () => {
    guarded = await serveDeployment(deployment.runtime, { token: TOKEN });
    guardedUrl = guarded.url;
  });
  afterAll(async () => {
    await guarded?.close();
  });

  it('keeps the card public, naming the bearer token, and lets only the token into /a2a', async () => {
    const card = (await (await fetch(`${guardedUrl}/.well-known/agent-card.json`)).json()) as Record<string, unknown>;
    expect(card).toMatchObject({ securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } } });
    const refused = await fetch(`${guardedUrl}/a2a`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}' });
    expect(refused.status).toBe(401);
    const client = await a2aClient(guardedUrl, { token: TOKEN, polling: true });
    await expect(client.getTask({ tenant: '', id: 'no-such-task', historyLength: undefined })).rejects.toMatchObject({ name: 'TaskNotFoundError' });
  });
});
