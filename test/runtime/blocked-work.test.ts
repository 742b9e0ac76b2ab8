import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { webhookEventSchema, type RunNode, type TierflowClient, type WebhookEvent } from '@tierflow/runtime';
import { redisClient, waitFor } from '@tierflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { simPlan, treeNodes } from '../support/runs.js';
import { tierflow } from '../security/tier-processes.js';
import { serveDeployment } from '../support/served.js';

// Blocked work that reaches the root waits for an external event, its deadline paused, and the
// same run goes on once it is unblocked (docs/protocol.md#blocked-work): four worker processes on
// a private Redis, a webhook receiver here, and the real CLI.

const QUIET = { TIERFLOW_LOG: 'silent' };
const BLOCKER = 'Waiting for the API key';

/** The text artifacts the sims made (the aggregate's own summary artifact left out). */
function texts(artifacts: readonly { artifact_type: string; inline_content?: string | null }[]): string[] {
  return artifacts.filter((artifact) => artifact.artifact_type === 'text').map((artifact) => artifact.inline_content ?? '');
}

/** Waits until the run is blocked, and returns its tree then. */
async function blocked(client: TierflowClient, rootId: string): Promise<RunNode> {
  let tree: RunNode | null = null;
  await waitFor(
    async () => {
      tree = await client.tree(rootId);
      return tree?.status === 'blocked' && tree.source !== 'outcome' && (tree.blockers?.length ?? 0) > 0;
    },
    { timeoutMs: 15_000, description: `run ${rootId} blocked` },
  );
  return tree!;
}

describe('blocked work waits to be unblocked', () => {
  let deployment: Deployment;
  let env: NodeJS.ProcessEnv;
  let server: Server;
  let dir: string;
  const events: WebhookEvent[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const parsed = webhookEventSchema.safeParse(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        if (parsed.success) events.push(parsed.data);
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dir = await mkdtemp(join(tmpdir(), 'tierflow-blocked-'));
    const config = join(dir, 'tierflow.config.json');
    await writeFile(config, JSON.stringify({ notify: [{ url: `${base}/hook`, events: ['blocked'], secretEnv: 'HOOK_SECRET' }] }));
    deployment = await startDeployment('blocked', { ...QUIET, TIERFLOW_CONFIG: config, HOOK_SECRET: 'whsec-blocked' });
    env = { ...QUIET, REDIS_URL: deployment.redis.url, TIERFLOW_PREFIX: deployment.runtime.prefix };
  }, 60_000);
  afterAll(async () => {
    await deployment?.stop();
    await new Promise((resolve) => server?.close(resolve));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('shows blocked with its blocker, tells the webhook, and once unblocked goes on as the same run, its wait counted against no deadline', async () => {
    const { client } = deployment;
    const objective = { ...simPlan('all_success', [{ block: BLOCKER }, { output_bytes: 8 }]), timeout_ms: 6_000 };
    const enqueuedAt = Date.now();
    const rootId = await client.enqueue(objective);
    const result = client.waitForResult(rootId);
    const tree = await blocked(client, rootId);
    const [blocker] = tree.blockers!;
    expect(blocker).toMatchObject({ blocker: BLOCKER, tier: 'SPECIALIZED_FLEET', unblocked: null });
    // Named by the outcome of the leaf that reported it.
    const leaf = treeNodes(tree, 'SPECIALIZED_FLEET').find((node) => `${node.id}.out` === blocker!.id);
    expect(leaf).toBeDefined();
    expect((await client.runs({ status: 'blocked' })).map((run) => run.root_id)).toContain(rootId);

    const status = await tierflow(['status', rootId, '--json'], env);
    expect(JSON.parse(status.stdout)).toMatchObject({ id: rootId, status: 'blocked', blockers: [{ id: blocker!.id, blocker: BLOCKER }] });
    await waitFor(() => events.some((event) => event.type === 'blocked' && event.root_id === rootId), { timeoutMs: 15_000, description: 'the blocked webhook' });
    expect(events.find((event) => event.root_id === rootId)).toMatchObject({ type: 'blocked', status: 'blocked', detail: { reason: BLOCKER, blocked_on: BLOCKER } });

    // Past the objective's own deadline and the wait's default limit: time spent blocked counts against neither.
    await waitFor(() => Date.now() - enqueuedAt > 11_500, { timeoutMs: 20_000, description: 'the deadline and the default wait limit passed' });
    const unblocked = await tierflow(['unblock', leaf!.id, '--note', 'key issued'], env);
    expect(unblocked).toMatchObject({ code: 0, stdout: expect.stringContaining('goes on') as string });

    const outcome = await result;
    expect(outcome.payload.status).toBe('success');
    // The leaf saw the note.
    expect(texts(outcome.payload.artifacts)).toContain('key issued');
    const architects = treeNodes((await client.tree(rootId))!, 'ABSTRACT_ARCHITECT');
    expect(architects.map((node) => [node.id, node.status])).toEqual([
      [`${rootId}.0-0`, 'blocked'],
      [`${rootId}.1-0`, 'success'],
    ]);
    const trail = await tierflow(['audit', rootId, '--json'], env);
    const entries = JSON.parse(trail.stdout) as { kind: string; id: string; detail: string }[];
    expect(entries.filter((entry) => entry.kind === 'blocked' || entry.kind === 'unblocked').map((entry) => [entry.kind, entry.id, entry.detail])).toEqual([
      ['blocked', blocker!.id, BLOCKER],
      ['unblocked', blocker!.id, 'key issued'],
    ]);
    // Nothing is left blocked: unblocking again is refused.
    const again = await tierflow(['unblock', rootId], env);
    expect(again).toMatchObject({ code: 2, stderr: expect.stringContaining('[not_blocked]') as string });
  }, 60_000);

  it('over the runs API: shows the blockers, refuses a node that reported none, and unblocks the whole run', async () => {
    const { client } = deployment;
    const served = await serveDeployment(deployment.runtime);
    try {
      const post = (path: string, body: unknown) => fetch(`${served.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const rootId = await client.enqueue(simPlan('all_success', [{ block: BLOCKER }]));
      await blocked(client, rootId);
      const run = (await (await fetch(`${served.url}/api/runs/${rootId}`)).json()) as { run: RunNode };
      expect(run.run).toMatchObject({ status: 'blocked', blockers: [{ blocker: BLOCKER, unblocked: null }] });
      const unknown = await post(`/api/runs/${rootId}/unblock`, { node: `${rootId}.9-9` });
      expect([unknown.status, ((await unknown.json()) as { error: { code: string } }).error.code]).toEqual([400, 'unknown_blocker']);
      const unblocked = await post(`/api/runs/${rootId}/unblock`, { note: 'done by hand' });
      expect([unblocked.status, await unblocked.json()]).toEqual([200, expect.objectContaining({ open: 0, resumed: true })]);
      const outcome = await client.waitForResult(rootId, { timeoutMs: 20_000 });
      expect(outcome.payload.status).toBe('success');
      expect(texts(outcome.payload.artifacts)).toContain('done by hand');
      const again = await post(`/api/runs/${rootId}/unblock`, {});
      expect([again.status, ((await again.json()) as { error: { code: string } }).error.code]).toEqual([409, 'not_blocked']);
    } finally {
      await served.close();
    }
  }, 40_000);
});

describe('blocked work never unblocked', () => {
  it('ends the run blocked once the wait runs out, its blockers in the outcome', async () => {
    const deployment = await startDeployment('blocked-wait', { ...QUIET, TIERFLOW_BLOCKED_WAIT_MS: '1500' });
    try {
      const { client } = deployment;
      const rootId = await client.enqueue(simPlan('all_success', [{ block: BLOCKER }]));
      await blocked(client, rootId);
      const outcome = await client.waitForResult(rootId, { timeoutMs: 15_000 });
      expect(outcome.payload).toMatchObject({ status: 'blocked', blockers: [{ blocker: BLOCKER, tier: 'SPECIALIZED_FLEET' }] });
      expect(outcome.payload.summary).toContain('not unblocked within 1.5 s');
      const redis = redisClient(deployment.redis.url);
      try {
        expect(await redis.exists(`${deployment.runtime.prefix}:blocked:${rootId}`)).toBe(0);
      } finally {
        redis.disconnect();
      }
    } finally {
      await deployment.stop();
    }
  }, 40_000);
});
