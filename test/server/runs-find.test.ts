import { controlKeys } from '@tierflow/runtime/admin';
import type { RunPage, RunSummary } from '@tierflow/runtime';
import { redisClient } from '@tierflow/testing';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../support/chromium.js';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { simPlan } from '../support/runs.js';
import { serveDeployment, type Served } from '../support/served.js';
import { tierflow } from '../security/tier-processes.js';

// Finding runs (docs/operations.md#finding-runs) over four worker processes on a private Redis:
// runs of different objectives and outcomes, found by each filter and paged through from the API,
// the CLI, and the dashboard in a real browser.

let deployment: Deployment;
let served: Served;
let browser: Browser;
/** The runs, by name: each one's root id. */
const ids: Record<'sort' | 'search' | 'failing' | 'costly' | 'plain', string> = { sort: '', search: '', failing: '', costly: '', plain: '' };
let failedStatus = '';

const api = async (query: string): Promise<RunPage> => {
  const response = await fetch(`${served.url}/api/runs?${query}`);
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as RunPage;
};
const found = async (query: string): Promise<string[]> => (await api(query)).runs.map((run) => run.root_id);
const env = (): NodeJS.ProcessEnv => ({ REDIS_URL: deployment.redis.url, TIERFLOW_PREFIX: deployment.runtime.prefix });

beforeAll(async () => {
  deployment = await startDeployment('runs-find', { TIERFLOW_LOG: 'silent' });
  served = await serveDeployment(deployment.runtime);
  const { client } = deployment;
  // One after another, so their order is their names' order, latest last.
  const run = async (objective: ReturnType<typeof simPlan>): Promise<string> => {
    const id = await client.enqueue(objective);
    await client.waitForResult(id, { timeoutMs: 20_000 });
    return id;
  };
  ids.sort = await run({ ...simPlan('all_success', [{}], { task_type: 'code' }), objective: 'Sort the Invoices by date' });
  ids.search = await run({ ...simPlan('all_success', [{}]), objective: 'Search the archive' });
  ids.failing = await run({ ...simPlan('all_success', [{ status: 'failed' }]), objective: 'Search, then fail' });
  failedStatus = (await client.result(ids.failing))!.payload.status;
  ids.costly = await run({ ...simPlan('all_success', [{}]), objective: 'An expensive one' });
  ids.plain = await run({ ...simPlan('all_success', [{}]), objective: 'Plain' });
  // The sim calls no model: the costly run's budget is charged here, as a model call's settlement would.
  const redis = redisClient(deployment.redis.url);
  await redis.hset(controlKeys(deployment.runtime.prefix).budget(ids.costly), 'tokens_in', 1_000, 'tokens_out', 234, 'cost_micro_usd', 25_000);
  redis.disconnect();
  browser = await chromium.launch({ executablePath: findChromium(), args: ['--no-sandbox'] });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await served?.close();
  await deployment?.stop();
});

describe('finding runs', () => {
  it('filters by status, objective text, task type, specialist, model, error type, time and cost over the API', async () => {
    const all = [ids.plain, ids.costly, ids.failing, ids.search, ids.sort];
    expect(await found('')).toEqual(all);
    expect(await found('text=SEARCH')).toEqual([ids.failing, ids.search]);
    expect(await found(`status=${failedStatus}`)).toEqual([ids.failing]);
    expect(await found('status=success&text=search')).toEqual([ids.search]);
    expect(await found('error_type=sim_failed')).toEqual([ids.failing]);
    expect(await found('task_type=code')).toEqual([ids.sort]);
    expect(await found('specialist=sim')).toEqual(all);
    expect(await found('model=none-such')).toEqual([]);
    expect(await found('min_cost_usd=0.02')).toEqual([ids.costly]);
    expect(await found('max_cost_usd=0')).toEqual(all.filter((id) => id !== ids.costly));
    const sorted = (await api('text=sort')).runs[0]!;
    const since = encodeURIComponent(sorted.submitted_at);
    expect(await found(`since=${since}&until=${since}`)).toEqual([ids.sort]);
    expect(await found(`since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual([]);
    // What each run spent, from its budget.
    expect((await api('min_cost_usd=0.02')).runs[0]).toMatchObject({ tokens: 1_234, cost_usd: 0.025, status: 'success', objective: 'An expensive one' });
    expect((await fetch(`${served.url}/api/runs?cursor=not-a-cursor`)).status).toBe(400);
    expect((await fetch(`${served.url}/api/runs?since=yesterday`)).status).toBe(400);
  });

  it('pages past the first with a cursor, filtered or not', async () => {
    const pages: string[][] = [];
    for (let cursor: string | null = null, guard = 0; guard < 10 && (guard === 0 || cursor !== null); guard++) {
      const page: RunPage = await api(`limit=2${cursor === null ? '' : `&cursor=${cursor}`}`);
      pages.push(page.runs.map((run) => run.root_id));
      cursor = page.next_cursor;
    }
    expect(pages).toEqual([[ids.plain, ids.costly], [ids.failing, ids.search], [ids.sort]]);
    const first = await api('limit=1&specialist=sim&max_cost_usd=0');
    expect(first.runs.map((run) => run.root_id)).toEqual([ids.plain]);
    expect(await found(`limit=1&specialist=sim&max_cost_usd=0&cursor=${first.next_cursor}`)).toEqual([ids.failing]);
  });

  it('from the command: filters, times as durations, tokens and cost, and the cursor to older runs', async () => {
    const json = await tierflow(['runs', '--json', '--text', 'search', '--since', '1h', '--specialist', 'sim', '--error', 'sim_failed'], env());
    expect(json, json.stderr).toMatchObject({ code: 0 });
    expect((JSON.parse(json.stdout) as RunPage).runs.map((run: RunSummary) => run.root_id)).toEqual([ids.failing]);
    const text = await tierflow(['runs', '--min-cost', '$0.01', '--until', new Date().toISOString()], env());
    expect(text.stdout).toMatch(new RegExp(`^${ids.costly}\\s+success\\s+\\d+ s\\s+[\\d.]+ s\\s+1,234\\s+\\$0\\.025\\s+An expensive one$`, 'm'));
    const paged = await tierflow(['runs', '--limit', '4'], env());
    const cursor = /^older runs: add --cursor (\S+)$/m.exec(paged.stdout)?.[1];
    expect(cursor, paged.stdout).toBeDefined();
    const older = await tierflow(['runs', '--json', '--cursor', cursor!], env());
    expect(JSON.parse(older.stdout)).toEqual({ runs: [expect.objectContaining({ root_id: ids.sort, objective: 'Sort the Invoices by date' })], next_cursor: null });
    expect((await tierflow(['runs', '--task-type', 'review'], env())).stdout).toBe('no runs match\n');
    const refused = await tierflow(['runs', '--since', 'yesterday'], env());
    expect([refused.code, refused.stderr]).toEqual([expect.not.stringMatching(/^0$/) as unknown, expect.stringContaining('how long ago') as unknown]);
  });

  it('on the dashboard: the filter form, tokens and cost, and a link to older runs', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => void (message.type() === 'error' && problems.push(message.text())));
    const rows = page.locator('#runs tbody tr[data-run-id]');
    const listed = async (): Promise<(string | null)[]> => Promise.all((await rows.all()).map((row) => row.getAttribute('data-run-id')));

    await page.goto(served.url);
    await page.locator(`#runs tr[data-run-id="${ids.costly}"]`).waitFor();
    const costly = page.locator(`#runs tr[data-run-id="${ids.costly}"] td`);
    expect(await costly.nth(5).textContent()).toBe('1,234');
    expect(await costly.nth(6).textContent()).toBe('$0.025');

    await page.locator('#run-filters input[name="text"]').fill('search');
    await page.locator('#run-filters select[name="status"]').selectOption('success');
    await page.locator('#run-filters button[type="submit"]').click();
    await page.waitForURL(/text=search/);
    await page.locator(`#runs tr[data-run-id="${ids.search}"]`).waitFor();
    expect(await listed()).toEqual([ids.search]);
    expect(await page.locator('#run-filters input[name="text"]').inputValue()).toBe('search');

    await page.goto(`${served.url}/?limit=2`);
    await page.locator('#runs-older').waitFor();
    expect(await listed()).toEqual([ids.plain, ids.costly]);
    await page.locator('#runs-older').click();
    await page.locator(`#runs tr[data-run-id="${ids.failing}"]`).waitFor();
    expect(await listed()).toEqual([ids.failing, ids.search]);
    await page.locator('#runs-latest').waitFor();
    expect(problems).toEqual([]);
    await context.close();
  }, 30_000);
});
