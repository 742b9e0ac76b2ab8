import { waitFor } from '@tierflow/testing';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { rawRequest } from '../support/raw-http.js';
import { simPlan, treeNodes } from '../support/runs.js';
import { serveDeployment, type Served } from '../support/served.js';

// `tierflow serve` without a token (the default, loopback only) against what a web page in the
// same person's browser can send it: a DNS-rebound page (its own host name, resolving to
// 127.0.0.1), and cross-site requests that need no preflight (a form, a bodiless POST, text/plain).

const QUIET = { TIERFLOW_LOG: 'silent' };
const EVIL = 'http://evil.example';
let deployment: Deployment;
let served: Served;
let url: string;
/** The host and port as the server's own pages name it: `127.0.0.1:<port>`. */
let host: string;

beforeAll(async () => {
  deployment = await startDeployment('hostile-pages', QUIET);
  served = await serveDeployment(deployment.runtime);
  url = served.url;
  host = new URL(url).host;
}, 60_000);

afterAll(async () => {
  await served?.close();
  await deployment?.stop();
});

/** A run that stays running long enough to be cancelled (or not). */
async function longRun(): Promise<string> {
  const rootId = await deployment.client.enqueue(simPlan('all_success', [{ delay_ms: 30_000 }]));
  await waitFor(
    async () => {
      const tree = await deployment.client.tree(rootId);
      return (tree && treeNodes(tree, 'SPECIALIZED_FLEET').some((node) => node.status === 'running')) || null;
    },
    { timeoutMs: 15_000, description: `${rootId}'s leaf working` },
  );
  return rootId;
}

/** Whether the run is still going: not cancelled, no outcome. */
async function stillGoing(rootId: string): Promise<boolean> {
  const [tree, outcome] = await Promise.all([deployment.client.tree(rootId), deployment.client.result(rootId)]);
  return tree !== null && tree.status !== 'cancelled' && outcome === null;
}

describe('a DNS-rebound page', () => {
  it('is refused: a Host that is not the address served gets 421, whatever the path', async () => {
    for (const rebound of [`rebind.evil.example:${new URL(url).port}`, `127.evil.example:${new URL(url).port}`, 'evil.example']) {
      const list = await rawRequest(`${url}/api/runs`, { headers: { host: rebound } });
      expect([rebound, list.status]).toEqual([rebound, 421]);
      expect(list.body).not.toContain('root_id');
      const enqueue = await rawRequest(`${url}/api/runs`, { method: 'POST', headers: { host: rebound, 'content-type': 'application/json' }, body: JSON.stringify(simPlan('all_success', [{}])) });
      expect(enqueue.status).toBe(421);
      expect((await rawRequest(`${url}/queues`, { headers: { host: rebound } })).status).toBe(421);
    }
  });

  it('lets in the names of loopback, as a browser on this machine sends them', async () => {
    const port = new URL(url).port;
    for (const name of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`]) {
      expect([name, (await rawRequest(`${url}/api/runs`, { headers: { host: name } })).status]).toEqual([name, 200]);
    }
  });
});

describe('a cross-site request', () => {
  it('cannot cancel a run with a bodiless POST (a form or fetch from another site)', async () => {
    const rootId = await longRun();
    const forged = await rawRequest(`${url}/api/runs/${rootId}/cancel`, { method: 'POST', headers: { host, origin: EVIL, 'sec-fetch-site': 'cross-site' } });
    expect(forged.status).toBe(403);
    // An older browser sends no Sec-Fetch-Site; a form posts text/plain: refused all the same.
    const form = await rawRequest(`${url}/api/runs/${rootId}/cancel`, { method: 'POST', headers: { host, origin: EVIL, 'content-type': 'text/plain' }, body: '{"reason":"x"}' });
    expect(form.status).toBe(403);
    const nullOrigin = await rawRequest(`${url}/api/runs/${rootId}/cancel`, { method: 'POST', headers: { host, origin: 'null' } });
    expect(nullOrigin.status).toBe(403);
    expect(await stillGoing(rootId)).toBe(true);
    // The dashboard's own request (same origin, JSON) still cancels it.
    const own = await rawRequest(`${url}/api/runs/${rootId}/cancel`, {
      method: 'POST',
      headers: { host, origin: url, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'from the page' }),
    });
    expect([own.status, JSON.parse(own.body)]).toMatchObject([200, { outcome: 'cancelled' }]);
  }, 40_000);

  it('cannot plant a root through Bull Board’s add-job with a text/plain POST', async () => {
    const monitor = new Queue('monitor', { connection: { host: '127.0.0.1', port: deployment.redis.port }, prefix: deployment.runtime.prefix });
    try {
      const before = await monitor.count();
      const body = JSON.stringify({ name: 'planted', data: { objective: 'planted by a page' }, options: {} });
      const planted = await rawRequest(`${url}/queues/api/queues/monitor/add`, { method: 'POST', headers: { host, origin: EVIL, 'content-type': 'text/plain' }, body });
      expect(planted.status).toBe(403);
      // Without an Origin (not a browser), text/plain is refused too: a JSON body must say it is JSON.
      const plain = await rawRequest(`${url}/queues/api/queues/monitor/add`, { method: 'POST', headers: { host, 'content-type': 'text/plain' }, body });
      expect(plain.status).toBe(415);
      // And Bull Board is read-only unless the operator asks: not even a same-origin JSON request adds a job.
      const same = await rawRequest(`${url}/queues/api/queues/monitor/add`, { method: 'POST', headers: { host, origin: url, 'content-type': 'application/json' }, body });
      expect(same.status).toBe(405);
      expect(await monitor.count()).toBe(before);
      // Reading it still works.
      expect((await rawRequest(`${url}/queues/api/queues`, { headers: { host } })).status).toBe(200);
    } finally {
      await monitor.close();
    }
  });

  it('from a script that is not a browser (no Origin) must say it is one of ours: JSON, or X-Tierflow-Request', async () => {
    const rootId = await longRun();
    const bare = await rawRequest(`${url}/api/runs/${rootId}/cancel`, { method: 'POST', headers: { host } });
    expect(bare.status).toBe(403);
    expect(JSON.parse(bare.body)).toMatchObject({ error: { code: 'forbidden' } });
    expect(await stillGoing(rootId)).toBe(true);
    const marked = await rawRequest(`${url}/api/runs/${rootId}/cancel`, { method: 'POST', headers: { host, 'x-tierflow-request': '1' } });
    expect([marked.status, JSON.parse(marked.body)]).toMatchObject([200, { outcome: 'cancelled' }]);
  }, 40_000);
});
