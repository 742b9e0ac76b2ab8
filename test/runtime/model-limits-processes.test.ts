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
let project: string;
let deployment: Deployment;
let second: TierProcesses | null = null;

beforeAll(async () => {
  server = await FakeOpenAiServer.start(['limited']);
  // A provider that enforces the limit itself: a request past it would get a 429 nobody scripted.
  server.rateLimit = { limit: RPM, windowMs: 60_000 };
  project = await mkdtemp(join(tmpdir(), 'tierflow-model-limits-'));
  const configFile = join(project, 'tierflow.config.json');
  await writeFile(configFile, JSON.stringify({ specialists: [{ kind: 'llm', name: 'limited', baseURL: server.baseURL, maxTokens: 50 }], models: { limits: { limited: { rpm: RPM } } } }));
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
  await server?.close();
  if (project) await rm(project, { recursive: true, force: true });
});

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
});
