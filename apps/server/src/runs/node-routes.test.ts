import { resolveRuntimeOptions } from '@tierflow/runtime';
import { auditKey } from '@tierflow/runtime/admin';
import { uniquePrefix } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveServerOptions } from '../config/server-options.js';
import { createServer, type TierflowServer } from '../server.js';

// A run's insides over the API, against a private Redis: entries written as the tiers write them.
const db = usePrivateRedis();
const prefix = uniquePrefix('node-api');
let server: TierflowServer;
const SILENT = { info: () => undefined, warn: () => undefined };

const LEAF = 'r.0-0.0-0.0-0';
const T0 = Date.parse('2026-11-28T10:00:00.000Z');
/** A run's recording stream (the runtime's recordKey): one JSON entry under field `r`. */
const record = (entry: object) => db.redis.xadd(`${prefix}:record:r`, '*', 'r', JSON.stringify(entry));
const audit = (fields: object) =>
  db.redis.xadd(
    auditKey(prefix, 'r'),
    '*',
    'e',
    JSON.stringify({ time: new Date(T0).toISOString(), from: 'x', by: 'x', direction: 'sent', correlation_id: '', status: '', confidence: null, attempt: null, detail: '', ...fields }),
  );

beforeAll(async () => {
  server = createServer(resolveRuntimeOptions({ redisUrl: db.server.url, prefix }), resolveServerOptions({}), SILENT);
  for (const [id, to] of [
    ['r.0-0', 'ABSTRACT_ARCHITECT'],
    ['r.0-0.0-0', 'ROUTING_DISPATCHER'],
    [LEAF, 'SPECIALIZED_FLEET'],
  ] as const)
    await audit({ kind: 'delegation', id, to });
  for (let n = 0; n < 5; n++) await audit({ kind: 'progress', id: LEAF, to: '', detail: `step ${n}` });
  const message = { id: LEAF, timestamp: new Date(T0).toISOString(), payload: { task_type: 'execute', objective: 'Say <b>hi</b>' } };
  await record({ kind: 'delegation', node: LEAF, tier: 'SPECIALIZED_FLEET', at: T0 + 10, attempt: 1, message, context: {} });
  await record({ kind: 'pass', node: LEAF, tier: 'SPECIALIZED_FLEET', started_at: T0 + 10, ended_at: T0 + 50, worker: 'h:1', attempt: 1, end: 'answered' });
  const call = { purpose: 'specialist', endpoint: 'http://127.0.0.1:9/v1', model: 'm', request_hash: 'h', error: null, started_at: T0 + 20, latency_ms: 20, tries: 1 };
  await record({
    kind: 'call',
    node: LEAF,
    tier: 'SPECIALIZED_FLEET',
    ...call,
    request: { messages: [{ role: 'user', content: 'Say hi' }], params: {} },
    answer: { content: 'hi', model: 'm', finish_reason: 'stop' },
    usage: { tokens_in: 3, tokens_out: 1, cost_usd: 0, llm_calls: 1 },
  });
  await record({ kind: 'outcome', node: LEAF, tier: 'SPECIALIZED_FLEET', at: T0 + 50, message: { payload: { status: 'success', summary: 'hi', confidence: 1 } } });
});

afterAll(async () => {
  await server?.close();
});

const get = async (path: string) => {
  const response = await server.app.request(path, { headers: { host: '127.0.0.1' } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

describe('a run’s insides over the API', () => {
  it('answers one node: its input, outcome, passes, waits and calls; an unknown node, or one of another run, is a 404 in the API’s error shape', async () => {
    const { status, body } = await get(`/api/runs/r/nodes/${LEAF}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ id: LEAF, root_id: 'r', tier: 'SPECIALIZED_FLEET', recording: 'full', input: { objective: 'Say <b>hi</b>' }, outcome: { status: 'success' } });
    expect(body.calls).toEqual([expect.objectContaining({ messages: [{ role: 'user', content: 'Say hi' }], answer: 'hi' })]);
    expect(body.waits).toEqual([{ kind: 'queued', from: T0, to: T0 + 10 }]);
    for (const path of ['/api/runs/r/nodes/r.0-0.0-0.0-7', `/api/runs/other/nodes/${LEAF}`]) {
      const missing = await get(path);
      expect(missing).toMatchObject({ status: 404, body: { error: { code: 'unknown_node', message: expect.stringContaining('no node') as string } } });
    }
  });

  it('answers the run’s timeline, its nodes depth first', async () => {
    const { status, body } = await get('/api/runs/r/timeline');
    expect(status).toBe(200);
    const nodes = body.nodes as { id: string; spans: { kind: string }[] }[];
    expect(nodes.map((node) => node.id)).toEqual(['r', 'r.0-0', 'r.0-0.0-0', LEAF]);
    expect(nodes.at(-1)!.spans.map((span) => span.kind)).toEqual(['queued', 'running']);
    expect((await get('/api/runs/nope/timeline')).status).toBe(404);
  });

  it('pages the audit trail and keeps the kinds asked; all of it without a limit', async () => {
    expect(((await get('/api/runs/r/audit')).body.entries as unknown[]).length).toBe(8);
    const first = await get('/api/runs/r/audit?kind=progress&limit=2');
    expect(first.body).toMatchObject({ total: 5, prev_cursor: null });
    expect((first.body.entries as { detail: string }[]).map((entry) => entry.detail)).toEqual(['step 0', 'step 1']);
    const second = await get(`/api/runs/r/audit?kind=progress&limit=2&cursor=${String(first.body.next_cursor)}`);
    expect((second.body.entries as { detail: string }[]).map((entry) => entry.detail)).toEqual(['step 2', 'step 3']);
    expect(((await get('/api/runs/r/audit?kind=delegation,outcome')).body.entries as unknown[]).length).toBe(3);
    expect(await get('/api/runs/r/audit?kind=nonsense')).toMatchObject({ status: 400, body: { error: { code: 'invalid_request' } } });
    expect((await get('/api/runs/r/audit?cursor=abc')).status).toBe(400);
  });

  it('are in the OpenAPI description', async () => {
    const { body } = await get('/openapi.json');
    expect(Object.keys(body.paths as object)).toEqual(expect.arrayContaining(['/api/runs/{id}/nodes/{node}', '/api/runs/{id}/timeline', '/api/runs/{id}/audit']));
  });
});
