import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveRuntimeOptions, type RuntimeOptions } from '@tierflow/runtime';
import { statsSchema } from '@tierflow/server';
import { redisClient, startRedisServer, uniquePrefix, type RedisServer } from '@tierflow/testing';
import type { Redis } from 'ioredis';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium, watchedPage } from '../support/chromium.js';
import { attempts, writeHistory } from '../support/history.js';
import { serveDeployment, type Served } from '../support/served.js';

// What the Monitor learned, over HTTP: history written by real decayed adds through Beads, served
// by `tierflow serve` as GET /api/stats (behind the token, in the shape of its schema, described
// in the OpenAPI document) and drawn by the dashboard's Specialists page in a real browser.

const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'artifacts');
const TOKEN = 'a-token-of-sixteen-chars-or-more';
const SEEN_MS = 20_000;
const SHADOW = { mode: 'shadow', reason: 'fixed', fixed: 'careful-coder', learned: 'quick-coder', expected_gain: -0.2 } as const;

let server: RedisServer;
let redis: Redis;
let runtime: RuntimeOptions;
let guarded: Served;
let open: Served;
let browser: Browser;

beforeAll(async () => {
  server = await startRedisServer();
  redis = redisClient(server.url);
  runtime = resolveRuntimeOptions({ redisUrl: server.url, prefix: uniquePrefix('stats-api') });
  await writeHistory(
    redis,
    runtime.prefix,
    [
      ...attempts(10, 9, { task_type: 'code_generation', specialist: 'careful-coder', routing: SHADOW }),
      ...attempts(10, 4, { task_type: 'code_generation', specialist: 'quick-coder', model: 'tiny-model', confidence: 0.95 }),
      ...attempts(3, 3, { task_type: 'summarise', specialist: 'summariser' }),
    ],
    Date.now(),
  );
  guarded = await serveDeployment(runtime, { token: TOKEN });
  open = await serveDeployment(runtime, { token: null });
  browser = await chromium.launch({ executablePath: findChromium(), args: ['--no-sandbox'] });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await open?.close();
  await guarded?.close();
  redis?.disconnect();
  await server?.stop();
});

const withToken = { headers: { authorization: `Bearer ${TOKEN}` } };

describe('GET /api/stats', () => {
  it('asks for the token, and with it answers the history report in the shape of its schema', async () => {
    expect((await fetch(`${guarded.url}/api/stats`)).status).toBe(401);
    const answer = await fetch(`${guarded.url}/api/stats`, withToken);
    expect(answer.status).toBe(200);
    const report = statsSchema.parse(await answer.json());
    expect(report.task_types.map((type) => type.task_type)).toEqual(['code_generation', 'summarise']);
    expect(report.task_types[0]!.specialists.map((entry) => entry.specialist)).toEqual(['careful-coder', 'quick-coder']);
    expect(report.task_types[0]!.specialists[1]!.stats.success_rate).toBeCloseTo(0.4, 3);
    expect(report.task_types[0]!.routing?.shadow?.decisions).toBeCloseTo(10, 1);
  });

  it('answers one task type with task_type, none for one without history, and refuses an empty one', async () => {
    const one = statsSchema.parse(await (await fetch(`${guarded.url}/api/stats?task_type=summarise`, withToken)).json());
    expect(one.task_types.map((type) => type.task_type)).toEqual(['summarise']);
    const none = statsSchema.parse(await (await fetch(`${guarded.url}/api/stats?task_type=${encodeURIComponent('no such/type')}`, withToken)).json());
    expect(none.task_types).toEqual([]);
    const empty = await fetch(`${guarded.url}/api/stats?task_type=`, withToken);
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
  });

  it('is described in the OpenAPI document, with the report’s schema', async () => {
    const doc = (await (await fetch(`${open.url}/openapi.json`)).json()) as {
      paths: Record<string, { get?: { parameters?: { name: string }[] } }>;
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    };
    expect(doc.paths['/api/stats']?.get?.parameters?.map((parameter) => parameter.name)).toEqual(['task_type']);
    expect(Object.keys(doc.components.schemas.HistoryReport?.properties ?? {})).toEqual(expect.arrayContaining(['generated_at', 'half_life_ms', 'task_types', 'bottlenecks']));
  });
});

describe('the dashboard’s Specialists page', () => {
  it('draws a table per task type with a row for each specialist and model, without a console error', async () => {
    const { page, problems } = await watchedPage(browser, { width: 1280, height: 1200 });
    await page.goto(`${open.url}/`);
    await page.locator('header nav a', { hasText: 'Specialists' }).click();
    await page.waitForURL(/\/specialists$/);
    const code = page.locator('section.task-type[data-task-type="code_generation"]');
    await code.locator('tr.specialist[data-specialist="quick-coder"]').waitFor({ timeout: SEEN_MS });
    const rows = await code.locator('tr.specialist').all();
    expect(await Promise.all(rows.map((row) => row.getAttribute('data-specialist')))).toEqual(['careful-coder', 'quick-coder']);
    const quick = code.locator('tr.specialist[data-specialist="quick-coder"]');
    await expect(quick.locator('td.success').textContent()).resolves.toContain('40%');
    expect(await quick.locator('td.success meter').getAttribute('value')).toBe('0.4');
    await expect(quick.locator('td.calibration').textContent()).resolves.toBe('ECE 0.55 over-confident');
    expect(await quick.locator('td.calibration').getAttribute('data-lean')).toBe('over-confident');
    await expect(code.locator('tr.model[data-model="tiny-model"]').count()).resolves.toBe(1);
    await expect(code.locator('p.routing').textContent()).resolves.toContain('learned routing would have chosen otherwise in 10 of 10');
    await expect(page.locator('section.task-type[data-task-type="summarise"] tr.specialist').count()).resolves.toBe(1);
    await expect(page.locator('#bottlenecks').textContent()).resolves.toContain('quick-coder');
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'specialists-page.png'), fullPage: true });
    // A task type's name leads to its page alone.
    await page.locator('section.task-type[data-task-type="summarise"] h2 a').click();
    await page.waitForURL(/task_type=summarise/);
    await page.locator('section.task-type[data-task-type="summarise"] tr.specialist').waitFor({ timeout: SEEN_MS });
    await expect(page.locator('section.task-type').count()).resolves.toBe(1);
    expect(problems).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('says what to do while there is no history', async () => {
    const empty = await serveDeployment(resolveRuntimeOptions({ redisUrl: server.url, prefix: uniquePrefix('stats-empty') }), { token: null });
    const { page, problems } = await watchedPage(browser);
    try {
      await page.goto(`${empty.url}/specialists`);
      await page.getByText('No history yet').waitFor({ timeout: SEEN_MS });
      await expect(page.locator('#specialists-note').textContent()).resolves.toContain('enqueue a run');
      expect(problems).toEqual([]);
    } finally {
      await page.context().close();
      await empty.close();
    }
  });
});
