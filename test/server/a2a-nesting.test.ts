import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ObjectiveFile } from '@tierflow/runtime';
import { createServer, listen, resolveServerOptions } from '@tierflow/server';
import { findFreePort, waitFor } from '@tierflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { SILENT_LOG } from '../support/served.js';

// One deployment whose Fleet has two `a2a` specialists: `self`, whose agent is this deployment's
// own A2A endpoint, and `other`, an endpoint over the same runs that says it is another
// deployment (an id of its own). Work handed to `self` would loop without the delegation guard;
// work handed to `other` may come back to it once more, one deployment too many.

const OTHER_ID = 'd-other-test';

let deployment: Deployment;
let project: string;
const servers: { close(): Promise<void> }[] = [];

async function serve(port: number, deploymentId: string): Promise<void> {
  const options = resolveServerOptions({ port });
  const server = createServer({ ...deployment.runtime, deploymentId }, options, SILENT_LOG);
  const { http } = await listen(server, options);
  servers.push({
    close: async () => {
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await server.close();
    },
  });
}

beforeAll(async () => {
  // Ports chosen first: the Fleet's configuration names the servers, which start after it.
  const [selfPort, otherPort] = [await findFreePort(), await findFreePort()];
  project = await mkdtemp(join(tmpdir(), 'tierflow-a2a-nesting-'));
  const config = {
    specialists: [
      { kind: 'a2a', name: 'self', url: `http://127.0.0.1:${selfPort}` },
      { kind: 'a2a', name: 'other', url: `http://127.0.0.1:${otherPort}` },
    ],
  };
  await writeFile(join(project, 'tierflow.config.json'), JSON.stringify(config));
  deployment = await startDeployment('a2a-nesting', { TIERFLOW_LOG: 'silent', TIERFLOW_CONFIG: join(project, 'tierflow.config.json') });
  await serve(selfPort, deployment.runtime.deploymentId);
  await serve(otherPort, OTHER_ID);
}, 90_000);

afterAll(async () => {
  for (const server of servers) await server.close();
  await deployment?.stop();
  await rm(project, { recursive: true, force: true });
});

/** An objective whose one subtask goes to `specialist`, carrying `inner` as the task data the remote run is handed. */
function handedTo(specialist: string, objective: string, inner: Record<string, unknown> = {}): ObjectiveFile {
  return { objective: `local: ${objective}`, task_data: { plan: { strategy: 'all_success', subtasks: [{ objective, specialist_hint: specialist, task_data: inner }] } } };
}

async function runsWith(errorType: string): Promise<string[]> {
  return (await deployment.client.findRuns({ errorType })).runs.map((run) => run.root_id);
}

describe('work handed across deployments', () => {
  it('is refused as a cycle when a deployment hands it to itself: the run fails at once, and no second run starts', async () => {
    const started = Date.now();
    const id = await deployment.client.enqueue(handedTo('self', 'loop forever'));
    const outcome = await deployment.client.waitForResult(id, { timeoutMs: 20_000 });
    expect(outcome.payload.status, `${outcome.payload.summary}\n${deployment.logs.join('\n')}`).toBe('failed');
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await waitFor(async () => ((await runsWith('delegation_cycle')).includes(id) ? true : null), { description: 'the run indexed under delegation_cycle' })).toBe(true);
    expect((await deployment.client.runs({ limit: 100 })).filter((run) => run.objective === 'loop forever')).toEqual([]);
  });

  it('is refused as too deep when a remote Tierflow would hand it further than its limit (1)', async () => {
    // Over there the work is handed on once more, to the same endpoint: depth 2, one too many.
    const inner = { plan: { strategy: 'all_success', subtasks: [{ objective: 'hop twice', specialist_hint: 'other' }] } };
    const id = await deployment.client.enqueue(handedTo('other', 'hop once', inner));
    const outcome = await deployment.client.waitForResult(id, { timeoutMs: 30_000 });
    expect(outcome.payload.status, `${outcome.payload.summary}\n${deployment.logs.join('\n')}`).not.toBe('success');
    const hop = await waitFor(async () => (await deployment.client.runs({ limit: 100 })).find((run) => run.objective === 'hop once'), { description: 'the run the first hop became' });
    const ended = await deployment.client.waitForResult(hop.root_id, { timeoutMs: 15_000 });
    expect(ended.payload.status).toBe('failed');
    expect(await waitFor(async () => ((await runsWith('delegation_too_deep')).includes(hop.root_id) ? true : null), { description: 'the hop indexed under delegation_too_deep' })).toBe(true);
    expect((await deployment.client.runs({ limit: 100 })).filter((run) => run.objective === 'hop twice')).toEqual([]);
  });
});
