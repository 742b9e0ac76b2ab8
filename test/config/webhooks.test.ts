import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnTiers, type TierProcesses } from '@tierflow/cli';
import { verifyWebhookSignature, webhookEventSchema } from '@tierflow/runtime';
import { readAuditTrail, readWebhookDeliveries } from '@tierflow/runtime/admin';
import { deliveriesSchema } from '@tierflow/server';
import { redisClient, waitFor } from '@tierflow/testing';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { findChromium, watchedPage } from '../support/chromium.js';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { simPlan } from '../support/runs.js';
import { serveDeployment } from '../support/served.js';

// Webhooks from a project file's `notify` (docs/extending.md#webhooks), over the four tier
// processes and a second Monitor: a receiver here is told of a run's end, signed with the secret
// its variable holds; one that answers 500 once is told again, and no more once it took it.
const SECRET = 'whsec-e2e-secret';

interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly answered: number;
}

let server: Server;
let base: string;
const received: Received[] = [];
let dir: string;
let deployment: Deployment;
let secondMonitor: TierProcesses | undefined;
let redis: Redis;

beforeAll(async () => {
  let flakyFailed = false;
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '';
      // The flaky receiver fails its first delivery, then takes every one.
      const answered = path === '/flaky' && !flakyFailed ? 500 : 200;
      if (path === '/flaky') flakyFailed = true;
      received.push({ path, headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), answered });
      response.writeHead(answered).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = await mkdtemp(join(tmpdir(), 'tierflow-webhooks-'));
  const config = join(dir, 'tierflow.config.json');
  await writeFile(
    config,
    JSON.stringify({
      notify: [
        { url: `${base}/hook`, events: ['done', 'question'], secretEnv: 'HOOK_SECRET' },
        { url: `${base}/flaky`, events: ['done', 'review'], secretEnv: 'HOOK_SECRET', maxAttempts: 3 },
        { url: `${base}/security`, events: ['security'], secretEnv: 'HOOK_SECRET' },
      ],
    }),
  );
  const env = { TIERFLOW_LOG: 'silent', TIERFLOW_CONFIG: config, HOOK_SECRET: SECRET };
  deployment = await startDeployment('webhooks', env);
  redis = redisClient(deployment.redis.url);
  // A second Monitor on the same deployment: a delivery is still made once.
  let ready = false;
  secondMonitor = spawnTiers(
    { ...process.env, OTEL_TRACES_EXPORTER: 'none', TIERFLOW_CALIBRATION: 'off', REDIS_URL: deployment.redis.url, TIERFLOW_PREFIX: deployment.runtime.prefix, ...env },
    (_tier, line) => {
      if (line.includes('worker ready')) ready = true;
    },
    ['monitor'],
  );
  await waitFor(() => ready, { timeoutMs: 45_000, description: 'the second monitor ready' });
}, 90_000);

afterAll(async () => {
  redis?.disconnect();
  await secondMonitor?.stop();
  await deployment?.stop();
  await new Promise((resolve) => server?.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

function eventsAt(path: string, rootId: string): Received[] {
  return received.filter((request) => request.path === path && request.body.includes(rootId));
}

describe('webhooks', () => {
  it('tell a subscribed URL of a run’s end, signed, and retry a receiver that failed, once', async () => {
    const rootId = await deployment.client.enqueue(simPlan('all_success', [{}]));
    await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 });

    await waitFor(() => eventsAt('/hook', rootId).length === 1, { timeoutMs: 15_000, description: `the done event at /hook; logs:\n${deployment.logs.join('\n')}` });
    const [hook] = eventsAt('/hook', rootId);
    const event = webhookEventSchema.parse(JSON.parse(hook!.body));
    expect(event).toMatchObject({ type: 'done', root_id: rootId, status: 'success', deployment: deployment.runtime.prefix });
    expect(hook!.headers['tierflow-event-id']).toBe(event.id);
    const header = hook!.headers['tierflow-signature'] as string;
    expect(verifyWebhookSignature({ secret: SECRET, header, body: hook!.body, nowS: Math.floor(Date.now() / 1000) })).toMatchObject({ ok: true });
    expect(verifyWebhookSignature({ secret: 'not the secret', header, body: hook!.body, nowS: Math.floor(Date.now() / 1000) })).toEqual({ ok: false, reason: 'mismatch' });

    // The flaky receiver answered 500, so it is told again: the same event, signed afresh.
    await waitFor(() => eventsAt('/flaky', rootId).length === 2, { timeoutMs: 15_000, description: 'the done event retried at /flaky' });
    const flaky = eventsAt('/flaky', rootId);
    expect(flaky.map((request) => request.answered)).toEqual([500, 200]);
    expect(flaky.map((request) => JSON.parse(request.body) as { id: string }).map((body) => body.id)).toEqual([event.id, event.id]);

    // Once delivered, the record says so, and nothing more is sent.
    const deliveries = await waitFor(
      async () => {
        const read = (await readWebhookDeliveries(redis, [deployment.runtime.prefix], 50)).filter((delivery) => delivery.root_id === rootId);
        return read.length === 2 && read.every((delivery) => delivery.state === 'delivered') ? read : null;
      },
      { timeoutMs: 10_000, description: 'both deliveries recorded as delivered' },
    );
    expect(deliveries.find((delivery) => delivery.url.endsWith('/flaky'))).toMatchObject({ type: 'done', attempts: 2, last_status: 200, last_error: null });
    expect(deliveries.find((delivery) => delivery.url.endsWith('/hook'))).toMatchObject({ type: 'done', attempts: 1, last_status: 200 });
    expect(eventsAt('/flaky', rootId)).toHaveLength(2);
    expect(eventsAt('/hook', rootId)).toHaveLength(1);

    // `tierflow serve` shows the same record.
    const served = await serveDeployment(deployment.runtime, { token: null });
    try {
      const response = await fetch(`${served.url}/api/webhooks/deliveries?limit=10`);
      expect(response.status).toBe(200);
      const body = deliveriesSchema.parse(await response.json());
      expect(
        body.deliveries
          .filter((delivery) => delivery.root_id === rootId)
          .map((delivery) => [delivery.url.replace(base, ''), delivery.state, delivery.attempts])
          .sort(),
      ).toEqual([
        ['/flaky', 'delivered', 2],
        ['/hook', 'delivered', 1],
      ]);

      // …and so does the dashboard's Webhooks page, in a real browser.
      const browser = await chromium.launch({ executablePath: findChromium(), args: ['--no-sandbox'] });
      try {
        const { page, problems } = await watchedPage(browser);
        await page.goto(`${served.url}/webhooks`);
        const rows = page.locator(`#webhooks tr[data-state="delivered"]:has(a[href="/runs/${rootId}"])`);
        await rows.nth(1).waitFor({ timeout: 10_000 });
        const shown = (await rows.allInnerTexts()).map((text) => text.split('\t').map((cell) => cell.trim()));
        expect(shown.map((cells) => [cells[1], cells[3]!.replace(base, ''), cells[5], cells[6]]).sort()).toEqual([
          ['done', '/flaky', '2 of 3', '200'],
          ['done', '/hook', '1 of 8', '200'],
        ]);
        expect(problems).toEqual([]);
      } finally {
        await browser.close();
      }
    } finally {
      await served.close();
    }
  }, 60_000);

  it('tell a subscribed URL of a run’s questions, then of its end once answered', async () => {
    const rootId = await deployment.client.enqueue(simPlan('all_success', [{ ask: 'Which region?' }]));
    await waitFor(() => eventsAt('/hook', rootId).length === 1, { timeoutMs: 20_000, description: 'the question event at /hook' });
    const question = webhookEventSchema.parse(JSON.parse(eventsAt('/hook', rootId)[0]!.body));
    expect(question).toMatchObject({ type: 'question', root_id: rootId, status: 'needs_clarification', summary: 'Which region?' });
    expect(question.type === 'question' && question.detail.questions.map((asked) => asked.question)).toEqual(['Which region?']);
    // /flaky takes no questions.
    expect(eventsAt('/flaky', rootId)).toEqual([]);

    await deployment.client.answer(rootId, 'eu-west');
    expect((await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 })).payload.status).toBe('success');
    await waitFor(() => eventsAt('/hook', rootId).length === 2, { timeoutMs: 15_000, description: 'the done event at /hook' });
    expect(eventsAt('/hook', rootId).map((request) => (JSON.parse(request.body) as { type: string }).type)).toEqual(['question', 'done']);
  }, 60_000);

  it('tell a subscribed URL of work held for review, naming the node', async () => {
    const rootId = await deployment.client.enqueue(simPlan('all_success', [{ confidence: 0.4 }]));
    const typesAt = (path: string) => eventsAt(path, rootId).map((request) => webhookEventSchema.parse(JSON.parse(request.body)));
    const review = await waitFor(() => typesAt('/flaky').find((event) => event.type === 'review'), { timeoutMs: 20_000, description: 'the review event at /flaky' });
    expect(review).toMatchObject({ type: 'review', root_id: rootId, detail: { checked_by: 'ROUTING_DISPATCHER', confidence: 0.4 } });
    expect(review.node_id?.startsWith(`${rootId}.`)).toBe(true);
    // The review is put to a person: /hook, which takes questions, is asked.
    await waitFor(() => typesAt('/hook').some((event) => event.type === 'question'), { timeoutMs: 15_000, description: 'the question event at /hook' });
    await deployment.client.cancel(rootId);
    await waitFor(() => typesAt('/hook').find((event) => event.type === 'done' && event.status === 'cancelled'), { timeoutMs: 15_000, description: 'the cancelled run’s done event at /hook' });
    expect(typesAt('/flaky').filter((event) => event.type === 'review')).toHaveLength(1);
  }, 60_000);

  it('tell a subscribed URL of a security finding, an agent hash mismatch, which the run’s trail records too', async () => {
    const pinned = { agent_id: 'sim', agent_version: '1.0.0', prompt_hash: '0'.repeat(64) };
    const rootId = await deployment.client.enqueue({
      objective: 'work pinned to a prompt the Fleet does not run',
      task_data: { plan: { strategy: 'all_success', subtasks: [{ objective: 'run it', task_type: 'general', specialist_hint: 'sim', target_agent: pinned }] } },
    });
    expect((await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 })).payload.status).toBe('failed');
    const [hook] = await waitFor(() => (eventsAt('/security', rootId).length > 0 ? eventsAt('/security', rootId) : null), { timeoutMs: 15_000, description: 'the security event at /security' });
    expect(verifyWebhookSignature({ secret: SECRET, header: String(hook!.headers['tierflow-signature']), body: hook!.body, nowS: Math.floor(Date.now() / 1000) })).toMatchObject({ ok: true });
    const event = webhookEventSchema.parse(JSON.parse(hook!.body));
    expect(event).toMatchObject({ type: 'security', root_id: rootId, detail: { kind: 'agent_hash_mismatch', severity: 'high' } });
    expect(event.node_id?.startsWith(`${rootId}.`)).toBe(true);
    const findings = (await readAuditTrail(redis, deployment.runtime.prefix, rootId)).filter((record) => record.kind === 'security');
    expect(findings).toEqual([
      expect.objectContaining({ from: 'SPECIALIZED_FLEET', to: 'ROUTING_DISPATCHER', status: 'flagged', id: `${event.node_id!}.out`, data: { kind: 'agent_hash_mismatch', severity: 'high' } }),
    ]);
  }, 60_000);
});
