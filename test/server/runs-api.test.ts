import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { serveDeployment, type Served } from '../support/served.js';
import { simPlan } from '../support/runs.js';
import { readSse, type SseEvent } from '../support/sse.js';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { BIN, tierflow } from '../security/tier-processes.js';
import { waitFor } from '@tierflow/testing';
import { RUN_STATUSES } from '@tierflow/runtime';

// `tierflow serve`'s runs API over four worker processes on a private Redis, driven over HTTP.

const QUIET = { TIERFLOW_LOG: 'silent' };
let deployment: Deployment;
let served: Served;
let url: string;

beforeAll(async () => {
  deployment = await startDeployment('serve', QUIET);
  served = await serveDeployment(deployment.runtime);
  url = served.url;
}, 60_000);

afterAll(async () => {
  await served?.close();
  await deployment?.stop();
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

/** Follows a run's event stream, calling `onEvent` for each, until the stream ends; returns them all. */
async function follow(rootId: string, onEvent: (event: SseEvent) => Promise<void> | void = () => undefined): Promise<SseEvent[]> {
  const response = await fetch(`${url}/api/runs/${rootId}/events`, { signal: AbortSignal.timeout(30_000) });
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  const events: SseEvent[] = [];
  for await (const event of readSse(response)) {
    events.push(event);
    await onEvent(event);
  }
  return events;
}

describe('the runs API', () => {
  it('enqueues a run, streams it as it goes, lets a person answer its question, and ends with its outcome', async () => {
    const enqueued = await post('/api/runs', simPlan('all_success', [{ ask: 'Which region?', delay_ms: 300 }, { delay_ms: 300 }]));
    expect(enqueued.status).toBe(202);
    const { root_id: rootId } = (await enqueued.json()) as { root_id: string };
    let answered: unknown = null;
    const events = await follow(rootId, async (event) => {
      const node = event.data as { id?: string; status?: string; questions?: { id: string }[] };
      if (event.event === 'node' && node.id === rootId && node.status === 'input_required' && answered === null) {
        answered = await (await post(`/api/runs/${rootId}/answer`, { text: 'eu-west' })).json();
      }
    });
    expect(answered).toMatchObject({ open: 0, resumed: true });
    const kinds = events.map((event) => event.event);
    expect(kinds.at(-1)).toBe('outcome');
    expect(kinds.filter((kind) => kind === 'node').length).toBeGreaterThan(5);
    expect(events.at(-1)!.data).toMatchObject({ root_id: rootId, status: 'success', outcome: { payload: { status: 'success' } } });
    // Every tier's node appeared on the stream, and the leaves ran.
    const tiers = new Set(events.filter((event) => event.event === 'node').map((event) => (event.data as { tier: string }).tier));
    expect(tiers).toEqual(new Set(['PROGRESS_MONITOR', 'ABSTRACT_ARCHITECT', 'ROUTING_DISPATCHER', 'SPECIALIZED_FLEET']));

    const run = (await (await fetch(`${url}/api/runs/${rootId}`)).json()) as { run: { status: string; children: unknown[] }; outcome: { payload: { status: string } } };
    expect(run).toMatchObject({ run: { status: 'success', queue_state: 'completed' }, outcome: { payload: { status: 'success' } } });
    // Every status the stream and the tree gave is a word of the vocabulary; BullMQ's states are only in queue_state.
    const statuses = events.flatMap((event) => (event.event === 'node' ? [(event.data as { status: string }).status] : []));
    expect(statuses.filter((status) => !(RUN_STATUSES as readonly string[]).includes(status))).toEqual([]);
    expect(run.run.children).toHaveLength(2);
    const audit = (await (await fetch(`${url}/api/runs/${rootId}/audit`)).json()) as { entries: { kind: string }[] };
    expect(audit.entries.map((entry) => entry.kind)).toEqual(expect.arrayContaining(['question', 'answer']));
    const listed = (await (await fetch(`${url}/api/runs?limit=50`)).json()) as { runs: { root_id: string; status: string }[] };
    expect(listed.runs).toContainEqual(expect.objectContaining({ root_id: rootId, status: 'success' }));
  }, 40_000);

  it('cancels a run, which the stream ends with', async () => {
    const { root_id: rootId } = (await (await post('/api/runs', simPlan('all_success', [{ delay_ms: 20_000 }]))).json()) as { root_id: string };
    let cancelled: unknown = null;
    const events = await follow(rootId, async (event) => {
      const node = event.data as { tier?: string; status?: string };
      if (event.event === 'node' && node.tier === 'SPECIALIZED_FLEET' && node.status === 'running' && cancelled === null) {
        cancelled = await (await post(`/api/runs/${rootId}/cancel`, { reason: 'test' })).json();
      }
    });
    expect(cancelled).toMatchObject({ outcome: 'cancelled', target: rootId });
    expect(events.at(-1)).toMatchObject({ event: 'outcome', data: { status: 'cancelled' } });
  }, 40_000);

  it('refuses what it cannot take, with a code and the problems', async () => {
    const invalid = await post('/api/runs', { objective: '', task_data: { plan: { strategy: 'sometimes' } } });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ error: { code: 'invalid_request', problems: expect.arrayContaining([expect.stringContaining('objective')]) as unknown } });
    expect((await fetch(`${url}/api/runs/no-such-run`)).status).toBe(404);
    // A status filter must be a word of the vocabulary, not one of BullMQ's states.
    expect((await fetch(`${url}/api/runs?status=prioritized`)).status).toBe(400);
    expect((await fetch(`${url}/api/runs?status=waiting_for_children`)).status).toBe(200);
    expect((await post('/api/runs/no-such-run/cancel', {})).status).toBe(404);
    // A bodiless cancel from a script says it is meant (X-Tierflow-Request): a page of another site could not.
    expect((await fetch(`${url}/api/runs/no-such-run/cancel`, { method: 'POST', headers: { 'x-tierflow-request': '1' } })).status).toBe(404);
    expect((await post('/api/runs/no-such-run/cancel', { cascade: 'yes' })).status).toBe(400);
    const notWaiting = await post('/api/runs/no-such-run/answer', { text: 'x' });
    expect([notWaiting.status, ((await notWaiting.json()) as { error: { code: string } }).error.code]).toEqual([409, 'not_waiting']);
    expect(await follow('no-such-run')).toEqual([{ event: 'error', data: expect.objectContaining({ code: 'unknown_run' }) as unknown }]);
    const broken = await fetch(`${url}/api/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' });
    expect(broken.status).toBe(400);
  });

  it('describes itself (OpenAPI), lists the workers, and serves Bull Board', async () => {
    const doc = (await (await fetch(`${url}/openapi.json`)).json()) as {
      openapi: string;
      paths: Record<string, unknown>;
      components: { schemas: Record<string, { properties: Record<string, { enum?: string[] }> }> };
    };
    expect(doc.openapi).toBe('3.1.0');
    // The status values are the vocabulary's, listed; the queue's own states are a debugging field.
    for (const schema of ['RunNode', 'RunSummary']) {
      expect(doc.components.schemas[schema]!.properties.status!.enum).toEqual([...RUN_STATUSES]);
      expect(doc.components.schemas[schema]!.properties).toHaveProperty('queue_state');
    }
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/runs', '/api/runs/{id}', '/api/runs/{id}/events', '/api/runs/{id}/cancel', '/api/runs/{id}/answer', '/api/runs/{id}/audit', '/api/workers']),
    );
    const workers = (await (await fetch(`${url}/api/workers`)).json()) as { workers: { tier: string }[] };
    expect(new Set(workers.workers.map((worker) => worker.tier))).toEqual(new Set(['PROGRESS_MONITOR', 'ABSTRACT_ARCHITECT', 'ROUTING_DISPATCHER', 'SPECIALIZED_FLEET']));
    const board = await fetch(`${url}/queues`);
    expect(board.status).toBe(200);
    expect(await board.text()).toContain('Tierflow queues');
  });
});

describe('access', () => {
  const TOKEN = 'a-token-of-sixteen-chars-or-more';
  let guarded: Served;
  let guardedUrl: string;
  const warnings: string[] = [];

  beforeAll(async () => {
    guarded = await serveDeployment(deployment.runtime, { token: TOKEN }, { info: () => undefined, warn: (message, fields) => void warnings.push(`${message} ${JSON.stringify(fields)}`) });
    guardedUrl = guarded.url;
  });
  afterAll(async () => {
    await guarded?.close();
  });

  it('refuses the API without the token, and logs the refusal without what it carried', async () => {
    const refused = await fetch(`${guardedUrl}/api/runs`, { headers: { authorization: 'Bearer not-the-token-at-all' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('Bearer');
    expect((await fetch(`${guardedUrl}/queues`)).status).toBe(401);
    expect(warnings.some((line) => line.includes('/api/runs'))).toBe(true);
    expect(warnings.join('\n')).not.toContain('not-the-token-at-all');
    // The description and the health check hold nothing of any run.
    expect((await fetch(`${guardedUrl}/openapi.json`)).status).toBe(200);
  });

  it('lets in the bearer token, and a browser signed in with it (an HttpOnly cookie)', async () => {
    expect((await fetch(`${guardedUrl}/api/runs`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    expect((await fetch(`${guardedUrl}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: 'wrong' }) })).status).toBe(401);
    const session = await fetch(`${guardedUrl}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: TOKEN }) });
    const cookie = session.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    expect((await fetch(`${guardedUrl}/api/runs`, { headers: { cookie: cookie.split(';')[0]! } })).status).toBe(200);
  });

  it('runs as `tierflow serve` until SIGTERM, then exits 0', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], {
      env: { ...process.env, ...QUIET, REDIS_URL: deployment.redis.url, TIERFLOW_PREFIX: deployment.runtime.prefix },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let printed: string | null = null;
    createInterface({ input: child.stdout }).on('line', (line) => (printed ??= /serving (http:\/\/\S+)/.exec(line)?.[1] ?? null));
    try {
      const address = await waitFor(() => printed, { timeoutMs: 15_000, description: 'the server to listen' });
      expect(await (await fetch(`${address}/healthz`)).json()).toEqual({ ok: true });
      expect((await fetch(`${address}/api/runs`)).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
  });

  it('will not listen beyond loopback without a token (exit 2)', async () => {
    const result = await tierflow(['serve', '--host', '0.0.0.0', '--port', '0'], { ...QUIET, TIERFLOW_API_TOKEN: '', REDIS_URL: deployment.redis.url });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('needs TIERFLOW_API_TOKEN');
  });
});
