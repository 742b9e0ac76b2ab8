import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnTiers, type TierProcesses } from '@tierflow/cli';
import type { OutcomeMessage } from '@tierflow/protocol';
import { FakeOpenAiServer, redisClient, waitFor } from '@tierflow/testing';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { treeNodes } from '../support/runs.js';

// Two Fleet processes, started by `tierflow worker fleet` from one project file, hold one model to
// the project file's `models.limits` through Redis alone. Each calls with a key of its own, so the
// server can tell whose request it got.
const RPM = 4;
let server: FakeOpenAiServer;
/** A model without limits of its own, which a 429 pauses all the same; and one that takes one request at a time. */
let busy: FakeOpenAiServer;
let fair: FakeOpenAiServer;
let project: string;
let deployment: Deployment;
let second: TierProcesses | null = null;

beforeAll(async () => {
  server = await FakeOpenAiServer.start(['limited']);
  // A provider that enforces the limit itself: a request past it would get a 429 nobody scripted.
  server.rateLimit = { limit: RPM, windowMs: 60_000 };
  busy = await FakeOpenAiServer.start(['busy']);
  fair = await FakeOpenAiServer.start(['fair']);
  project = await mkdtemp(join(tmpdir(), 'tierflow-model-limits-'));
  const configFile = join(project, 'tierflow.config.json');
  const specialists = [
    { kind: 'llm', name: 'limited', baseURL: server.baseURL, maxTokens: 50 },
    { kind: 'llm', name: 'busy', baseURL: busy.baseURL, maxTokens: 50 },
    { kind: 'llm', name: 'fair', baseURL: fair.baseURL, maxTokens: 50 },
  ];
  await writeFile(configFile, JSON.stringify({ specialists, models: { limits: { limited: { rpm: RPM }, fair: { concurrent: 1 } } } }));
  // Three jobs at once per Fleet: neither process can hold all the work.
  const env = { TIERFLOW_CONFIG: configFile, TIERFLOW_CONCURRENCY: '3', OPENAI_API_KEY: 'worker-a' };
  deployment = await startDeployment('model-limits-processes', env);
  const ready: string[] = [];
  second = spawnTiers(
    { ...process.env, OTEL_TRACES_EXPORTER: 'none', REDIS_URL: deployment.redis.url, TIERFLOW_PREFIX: deployment.runtime.prefix, ...env, OPENAI_API_KEY: 'worker-b' },
    (tier, line) => {
      deployment.logs.push(`${tier} (second) | ${line}`);
      if (line.includes('worker ready')) ready.push(tier);
    },
    ['fleet'],
  );
  await waitFor(() => ready.length === 1, { timeoutMs: 45_000, description: `the second Fleet ready; output:\n${deployment.logs.join('\n')}` });
}, 90_000);

afterAll(async () => {
  await second?.stop();
  await deployment?.stop();
  await Promise.all([server, busy, fair].map((each) => each?.close()));
  if (project) await rm(project, { recursive: true, force: true });
});

const pieces = (run: string, count: number, specialist: string) => ({
  objective: `${run} run`,
  task_data: {
    plan: { strategy: 'all_success', subtasks: Array.from({ length: count }, (_, index) => ({ objective: `${run} piece ${index + 1}`, specialist_hint: specialist, timeout_ms: 30_000 })) },
  },
});
const senders = (fake: FakeOpenAiServer) => new Set(fake.requests.map((request) => request.headers.authorization));

describe('model limits over two Fleet processes', () => {
  it('lets no more than rpm requests reach the model from both together, and the leaves past it answer throttled', async () => {
    // The first four answers are held until four requests have arrived: one Fleet holds at most
    // three, so the fourth can only come from the other.
    server.holdUntil(RPM);
    const subtasks = Array.from({ length: 8 }, (_, index) => ({ objective: `piece ${index + 1}`, specialist_hint: 'limited', timeout_ms: 5_000 }));
    const rootId = await deployment.client.enqueue({ objective: 'write the pieces', task_data: { plan: { strategy: 'all_success', subtasks } } });
    await deployment.client.waitForResult(rootId, { timeoutMs: 60_000 });
    expect(server.completions()).toBe(RPM);
    expect(server.overLimit).toBe(0);
    expect(new Set(server.requests.map((request) => request.headers.authorization))).toEqual(new Set(['Bearer worker-a', 'Bearer worker-b']));

    const redis = redisClient(deployment.redis.url);
    const queue = new Queue('fleet', { connection: redis, prefix: deployment.runtime.prefix });
    try {
      const leaves = treeNodes((await deployment.client.tree(rootId))!, 'SPECIALIZED_FLEET');
      const answers = (await Promise.all(leaves.map(async (leaf) => (await queue.getJob(leaf.id))?.returnvalue as OutcomeMessage | undefined))).filter((answer) => answer !== undefined);
      const limited = answers.filter((answer) => answer.payload.resources_used.specialist === 'limited' || answer.payload.error_type === 'throttled');
      expect(limited.filter((answer) => answer.payload.status === 'success')).toHaveLength(RPM);
      const throttled = limited.filter((answer) => answer.payload.status === 'throttled');
      expect(throttled.length).toBeGreaterThanOrEqual(1);
      for (const answer of throttled) expect(answer.payload.error_detail).toContain('rpm limit');
    } finally {
      await queue.close();
      redis.disconnect();
    }
  }, 90_000);

  it('pauses a model in both processes when the server answers 429 with Retry-After', async () => {
    busy.replies.push({ status: 429, headers: { 'retry-after': '2' }, body: { error: { message: 'slow down' } } });
    const first = await deployment.client.enqueue(pieces('first', 1, 'busy'));
    await waitFor(() => busy.completions() >= 1, { timeoutMs: 20_000, description: 'the refused request' });
    const refusedAt = busy.requests[0]!.at;
    // Sent while the model is paused: each leaf waits the pause out (parked), on whichever process takes it.
    const second = await deployment.client.enqueue(pieces('second', 6, 'busy'));
    for (const rootId of [first, second]) expect((await deployment.client.waitForResult(rootId, { timeoutMs: 60_000 })).payload.status).toBe('success');
    const after = busy.requests.slice(1).map((request) => request.at - refusedAt);
    expect(after).toHaveLength(7);
    // Retry-After is whole seconds: a little under 2 s allows for when the pause was written after the 429 arrived.
    for (const ms of after) expect(ms).toBeGreaterThanOrEqual(1_900);
    expect(senders(busy)).toEqual(new Set(['Bearer worker-a', 'Bearer worker-b']));
  }, 90_000);

  it('serves a small run in turn beside a big one on a model that takes one request at a time, across both processes', async () => {
    fair.latencyMs = 150;
    // Six leaves fill the two processes' six slots; the small run's leaves join as slots free.
    const big = await deployment.client.enqueue(pieces('big', 6, 'fair'));
    await waitFor(() => fair.received >= 1, { timeoutMs: 20_000, description: 'the big run’s first request' });
    const small = await deployment.client.enqueue(pieces('small', 2, 'fair'));
    for (const rootId of [big, small]) expect((await deployment.client.waitForResult(rootId, { timeoutMs: 60_000 })).payload.status).toBe('success');
    const order = fair.requests.filter((request) => request.path === '/v1/chat/completions').map((request) => (JSON.stringify(request.body).includes('small piece') ? 'small' : 'big'));
    expect(order).toHaveLength(8);
    // First come, first served, the small run would go last (7th and 8th).
    expect(order.indexOf('small')).toBeLessThanOrEqual(3);
    expect(order.lastIndexOf('small')).toBeLessThanOrEqual(5);
    expect(senders(fair)).toEqual(new Set(['Bearer worker-a', 'Bearer worker-b']));
  }, 90_000);
});
