import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ObjectiveFile } from '@tierflow/runtime';
import { waitFor } from '@tierflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { serveDeployment, type Served } from '../support/served.js';
import { simPlan, treeNodes } from '../support/runs.js';

// Two deployments: the local one's Fleet has an `a2a` specialist, `remote-writer`, whose agent is
// the remote one's A2A endpoint (behind a token). A subtask routed to it becomes a run over there.

const QUIET = { TIERFLOW_LOG: 'silent' };
const TOKEN = 'a-token-of-sixteen-chars-or-more';

let remote: Deployment;
let remoteServer: Served;
let local: Deployment;
let project: string;

beforeAll(async () => {
  remote = await startDeployment('a2a-remote', QUIET);
  remoteServer = await serveDeployment(remote.runtime, { token: TOKEN });
  project = await mkdtemp(join(tmpdir(), 'tierflow-a2a-'));
  const config = { specialists: [{ kind: 'a2a', name: 'remote-writer', url: remoteServer.url, tokenEnv: 'TEST_REMOTE_TOKEN' }] };
  await writeFile(join(project, 'tierflow.config.json'), JSON.stringify(config));
  local = await startDeployment('a2a-local', { ...QUIET, TIERFLOW_CONFIG: join(project, 'tierflow.config.json'), TEST_REMOTE_TOKEN: TOKEN });
}, 90_000);

afterAll(async () => {
  await local?.stop();
  await remoteServer?.close();
  await remote?.stop();
  await rm(project, { recursive: true, force: true });
});

/** A local objective whose one subtask goes to `remote-writer`, carrying the remote run's plan: one sim subtask with `sim`'s script. */
function handedOver(objective: string, sim: Record<string, unknown>, subtask: Record<string, unknown> = {}): ObjectiveFile {
  return {
    objective: `local: ${objective}`,
    task_data: { plan: { strategy: 'all_success', subtasks: [{ objective, specialist_hint: 'remote-writer', task_data: { plan: simPlan('all_success', [sim]).task_data!.plan }, ...subtask }] } },
  };
}

/** The remote run a subtask became, found by its objective. */
function remoteRun(objective: string): Promise<{ root_id: string; status: string }> {
  return waitFor(async () => (await remote.client.runs({ limit: 100 })).find((run) => run.objective === objective), { description: `a remote run for "${objective}"`, timeoutMs: 15_000 });
}

describe('an a2a specialist', () => {
  it('hands its subtask to the remote agent, and brings back the remote run’s artifacts', async () => {
    const id = await local.client.enqueue(handedOver('write remotely', { output_bytes: 20 }));
    const outcome = await local.client.waitForResult(id, { timeoutMs: 30_000 });
    expect(outcome.payload.status, `${outcome.payload.summary}\n${local.logs.join('\n')}`).toBe('success');
    expect(outcome.payload.artifacts.map((artifact) => artifact.inline_content)).toContain('tierflow sim output.');
    const run = await remoteRun('write remotely');
    expect(run.status).toBe('success');
    const leaf = treeNodes((await local.client.tree(id))!, 'SPECIALIZED_FLEET')[0];
    expect(leaf).toMatchObject({ specialist: 'remote-writer', status: 'success', confidence: 0.9 });
  });

  it('cancels the remote task when its run is cancelled', async () => {
    const id = await local.client.enqueue(handedOver('write slowly', { delay_ms: 20_000 }));
    const run = await remoteRun('write slowly');
    await waitFor(async () => treeNodes((await remote.client.tree(run.root_id))!, 'SPECIALIZED_FLEET').some((node) => node.status === 'running'), { description: 'the remote Fleet at work' });
    await local.client.cancel(id, { reason: 'test' });
    expect((await local.client.waitForResult(id, { timeoutMs: 15_000 })).payload.status).toBe('cancelled');
    const remoteOutcome = await remote.client.waitForResult(run.root_id, { timeoutMs: 15_000 });
    expect(remoteOutcome.payload.status).toBe('cancelled');
  });

  it('gives the remote run the time left before its deadline: the remote task does not outlive the subtask', async () => {
    const id = await local.client.enqueue(handedOver('write too slowly', { delay_ms: 20_000 }, { timeout_ms: 3_000 }));
    const run = await remoteRun('write too slowly');
    const remoteOutcome = await remote.client.waitForResult(run.root_id, { timeoutMs: 15_000 });
    // Its own timeout (the time the subtask had left), or the cancellation at the subtask's deadline: long before its 20 s.
    expect(['timeout', 'cancelled']).toContain(remoteOutcome.payload.status);
    const ended = (await remote.client.runs({ limit: 100 })).find((summary) => summary.root_id === run.root_id)!;
    expect(Date.parse(ended.finished_at!) - Date.parse(ended.submitted_at)).toBeLessThan(10_000);
    await local.client.cancel(id, { reason: 'test over' });
  });

  it('asks the local run’s person what the remote agent asks, and leaves no remote task waiting', async () => {
    const id = await local.client.enqueue(handedOver('ask remotely', { ask: 'Which region?' }));
    const asking = await waitFor(
      async () => {
        const tree = await local.client.tree(id);
        return tree?.status === 'input_required' ? tree : null;
      },
      { description: 'the local run asking', timeoutMs: 20_000 },
    );
    expect(asking.questions?.map((question) => question.question)).toEqual(['Which region?']);
    const run = await remoteRun('ask remotely');
    expect((await remote.client.waitForResult(run.root_id, { timeoutMs: 15_000 })).payload.status).toBe('cancelled');
    await local.client.cancel(id, { reason: 'test over' });
  });
});
