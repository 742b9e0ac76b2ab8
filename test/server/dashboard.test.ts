import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium, watchedPage } from '../support/chromium.js';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { startOtlpReceiver, tracingTo, type OtlpReceiver } from '../support/otlp-receiver.js';
import { simPlan } from '../support/runs.js';
import { serveDeployment, type Served } from '../support/served.js';
import { waitFor } from '@tierflow/testing';
import { SPAN_KINDS } from '@tierflow/runtime/admin';

// The dashboard in a real browser (Debian's chromium, driven by playwright-core) over four worker
// processes on a private Redis: it follows a run live, cancels one, answers one, lists them, and
// signs in to a server that asks for a token. Any console error, page error or request beyond the
// server fails the test.

const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'artifacts');
const TOKEN = 'a-token-of-sixteen-chars-or-more';
/** Where the pages link traces; never visited. */
const JAEGER_URL = 'http://jaeger.example:16686';
/** How long the page may take to show what the test waits for. */
const SEEN_MS = 20_000;

/** The deployment served as `tierflow serve` does, its traces linked to the test's Jaeger address. */
const serve = (deployment: Deployment, token: string | null): Promise<Served> => serveDeployment(deployment.runtime, { token, jaegerUrl: JAEGER_URL });

let receiver: OtlpReceiver;
let deployment: Deployment;
let open: Served;
let browser: Browser;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  // Spans go to a receiver of the test's own, so runs have traces to link to.
  receiver = await startOtlpReceiver();
  deployment = await startDeployment('dashboard', {
    TIERFLOW_LOG: 'silent',
    ...tracingTo(receiver, 'http/json'),
  });
  open = await serve(deployment, null);
  browser = await chromium.launch({ executablePath: findChromium(), args: ['--no-sandbox'] });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await open?.close();
  await deployment?.stop();
  await receiver?.close();
});

const newPage = (): Promise<{ page: Page; problems: string[] }> => watchedPage(browser);

/** An attribute of every element a locator finds, in order. */
const attributes = async (locator: Locator, name: string): Promise<(string | null)[]> => Promise.all((await locator.all()).map((element) => element.getAttribute(name)));
/** An attribute of every element a selector finds, read in one go (as the page may replace them meanwhile). */
const attributesNow = (page: Page, selector: string, name: string): Promise<(string | null)[]> =>
  page.evaluate<(string | null)[]>(`[...document.querySelectorAll(${JSON.stringify(selector)})].map((element) => element.getAttribute(${JSON.stringify(name)}))`);
const node = (page: Page, selector: string) => page.locator(`#tree tr${selector}`);
const runStatus = (page: Page, status: string) => page.locator(`#run-status .status[data-status="${status}"]`);

describe('the dashboard', () => {
  it('follows a run live as its leaves work, and cancels it with the button', async () => {
    const { page, problems } = await newPage();
    // Two leaves: one done in six seconds (time enough for the page to see it work), one that would take a minute.
    const rootId = await deployment.client.enqueue(simPlan('all_success', [{ delay_ms: 6_000 }, { delay_ms: 60_000 }]));
    const quick = `${rootId}.0-0.0-0.0-0`;
    const slow = `${rootId}.0-0.0-0.0-1`;
    await page.goto(`${open.url}/runs/${rootId}`);
    await expect(page.title()).resolves.toContain(rootId);

    // The quick leaf goes active, reports progress, and succeeds, without a reload.
    await node(page, `[data-node-id="${quick}"][data-status="running"]`).waitFor({ timeout: SEEN_MS });
    await node(page, `[data-node-id="${quick}"] td.progress:has-text("%")`).waitFor({ timeout: SEEN_MS });
    await node(page, `[data-node-id="${quick}"][data-status="success"]`).waitFor({ timeout: SEEN_MS });
    await node(page, `[data-node-id="${slow}"][data-status="running"]`).waitFor({ timeout: SEEN_MS });
    // Every tier's node is on the page, with the specialist and elapsed time.
    expect(await attributes(page.locator('#tree tbody tr'), 'data-tier')).toEqual(['monitor', 'architect', 'dispatcher', 'fleet', 'fleet']);
    await expect(node(page, `[data-node-id="${quick}"] td`).nth(3).textContent()).resolves.toBe('sim');
    await expect(node(page, `[data-node-id="${quick}"] td.elapsed`).textContent()).resolves.toMatch(/^\d+\.\d s$/);
    expect(await page.locator('#cancel').isVisible()).toBe(true);

    page.once('dialog', (dialog) => void dialog.accept());
    await page.locator('#cancel').click();
    await runStatus(page, 'cancelled').waitFor({ timeout: SEEN_MS });
    await node(page, `[data-node-id="${slow}"][data-status="cancelled"]`).waitFor({ timeout: SEEN_MS });
    await page.locator('#outcome .status[data-status="cancelled"]').waitFor({ timeout: SEEN_MS });
    expect(await page.locator('#cancel').isHidden()).toBe(true);
    // The audit trail tells of the cancellation.
    await page.locator('#audit tr[data-kind="cancellation"]').first().waitFor({ timeout: SEEN_MS });
    await page.screenshot({ path: join(ARTIFACTS, 'run-page-cancelled.png'), fullPage: true });
    expect(problems).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('opens a node from the tree and from the timeline, its recorded text shown as text, and pages the audit trail by kind', async () => {
    const { page, problems } = await newPage();
    // A hostile objective: it reaches the leaf's input, and the page must show it as text.
    const hostile = '<img src=x onerror="window.pwned=1"><script>window.pwned=1</script>';
    const rootId = await deployment.client.enqueue(simPlan('all_success', [{ output_bytes: 40 }], { objective: `subtask ${hostile}` }));
    const leaf = `${rootId}.0-0.0-0.0-0`;
    await deployment.client.waitForResult(rootId, { timeoutMs: SEEN_MS });
    await page.goto(`${open.url}/runs/${rootId}`);
    await runStatus(page, 'success').waitFor({ timeout: SEEN_MS });

    await node(page, `[data-node-id="${leaf}"]`).click();
    const panel = page.locator(`#node-panel[data-node-id="${leaf}"]`);
    await panel.waitFor({ timeout: SEEN_MS });
    await panel.getByText(`subtask ${hostile}`, { exact: true }).waitFor({ timeout: SEEN_MS });
    expect(await panel.locator('img, script').count()).toBe(0);
    expect(await page.evaluate<unknown>('window.pwned')).toBeUndefined();
    await panel.locator('.artifact').first().waitFor({ timeout: SEEN_MS });
    // How the Dispatcher chose its specialist: the fixed table's only candidate.
    await panel.locator('#node-routing', { hasText: 'fixed: sim (only_candidate)' }).waitFor({ timeout: SEEN_MS });
    // Recorded: its pass and its waits.
    await panel.locator('h3', { hasText: 'Passes' }).waitFor({ timeout: SEEN_MS });
    await panel.locator('h3', { hasText: 'Waits' }).waitFor({ timeout: SEEN_MS });
    expect(await panel.locator('#node-actions button.rerun').textContent()).toBe('Rerun from here');
    expect(await node(page, `[data-node-id="${leaf}"]`).getAttribute('aria-selected')).toBe('true');

    // The timeline: a row a node in the tree's order, bars on one axis, a legend.
    const rows = page.locator('#timeline .timeline-row[data-node-id]');
    await rows.first().waitFor({ timeout: SEEN_MS });
    expect(await attributesNow(page, '#timeline .timeline-row[data-node-id]', 'data-node-id')).toEqual([rootId, `${rootId}.0-0`, `${rootId}.0-0.0-0`, leaf]);
    expect(await page.locator('#timeline .bar').count()).toBeGreaterThanOrEqual(4);
    // One entry a kind of stretch: running, queued, and each wait.
    expect(await page.locator('#timeline .legend li').count()).toBe(SPAN_KINDS.length);
    expect(await page.locator('#timeline .bar[data-kind="children"]').count()).toBeGreaterThan(0);
    await page.locator(`#timeline button[data-node-id="${rootId}"]`).click();
    await page.locator(`#node-panel[data-node-id="${rootId}"]`).waitFor({ timeout: SEEN_MS });
    await page.screenshot({ path: join(ARTIFACTS, 'run-page-node.png'), fullPage: true });
    await page.locator('#node-panel button.close').click();
    await page.locator('#node-panel').waitFor({ state: 'detached', timeout: SEEN_MS });

    // The audit trail, of one kind.
    await page.locator('#audit-kind').selectOption('outcome');
    await waitFor(
      async () => {
        const kinds = await attributesNow(page, '#audit tbody tr', 'data-kind');
        return kinds.length > 0 && kinds.every((kind) => kind === 'outcome');
      },
      { timeoutMs: SEEN_MS, description: 'only outcomes on the audit trail' },
    );
    expect(await page.locator('#audit-older').isDisabled()).toBe(true);

    // Rerun, replaying strictly: the page goes to the new run, which says what it reruns.
    await page.locator('select.rerun-replay').first().selectOption('strict');
    await page.locator('button.rerun', { hasText: /^Rerun$/ }).click();
    await page.waitForURL((url) => url.pathname.startsWith('/runs/') && !url.pathname.endsWith(rootId), { timeout: SEEN_MS });
    await runStatus(page, 'success').waitFor({ timeout: SEEN_MS });
    await page.locator('#rerun-links a', { hasText: rootId }).waitFor({ timeout: SEEN_MS });
    expect(problems).toEqual([]);
    await page.context().close();
  }, 40_000);

  it('enqueues from the runs page, answers the run’s question on its page, and lists it finished', async () => {
    const { page, problems } = await newPage();
    await page.goto(open.url);
    await page.locator('#runs').waitFor();
    await page.locator('details.enqueue summary').click();
    const objective = simPlan('all_success', [{ ask: 'Which region?', delay_ms: 300 }, { delay_ms: 300 }, { delay_ms: 300 }]);
    await page.locator('#objective-file').fill(JSON.stringify({ ...objective, objective: 'Deploy <b>the</b> service' }, null, 2));
    await page.locator('#enqueue button[type="submit"]').click();
    await page.waitForURL(/\/runs\/[^/]+$/, { timeout: SEEN_MS });
    const rootId = decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1)!);

    await runStatus(page, 'input_required').waitFor({ timeout: SEEN_MS });
    const question = page.locator('#questions form.question-item');
    await expect(question.locator('.question').textContent()).resolves.toContain('Which region?');
    await question.locator('input[name="text"]').fill('eu-west');
    await question.locator('button[type="submit"]').click();

    await runStatus(page, 'success').waitFor({ timeout: SEEN_MS });
    await page.locator('#outcome .status[data-status="success"]').waitFor({ timeout: SEEN_MS });
    // The Monitor sent its round again with the answer (`.1-0`), and its three leaves succeeded.
    await node(page, `[data-node-id^="${rootId}.1-0"][data-tier="fleet"][data-status="success"]`).nth(2).waitFor({ timeout: SEEN_MS });
    await page.locator('#audit tr[data-kind="question"] td.detail:text-is("Which region?")').waitFor({ timeout: SEEN_MS });
    await page.locator('#audit tr[data-kind="answer"] td.detail:text-is("eu-west")').waitFor({ timeout: SEEN_MS });
    // Tracing recorded the run: once its spans reached the receiver (and the Monitor marked them
    // exported), the page links to its trace. A page read before that has no link: read it again.
    const trace = await waitFor(
      async () => {
        if ((await page.locator('#trace').count()) > 0) return page.locator('#trace').getAttribute('href');
        await page.reload();
        await runStatus(page, 'success').waitFor({ timeout: SEEN_MS });
        return null;
      },
      { timeoutMs: SEEN_MS, description: 'the link to the run’s trace' },
    );
    expect([trace?.startsWith(`${JAEGER_URL}/trace/`), trace]).toEqual([true, expect.stringMatching(/\/trace\/[0-9a-f]{32}$/)]);
    await page.screenshot({ path: join(ARTIFACTS, 'run-page-answered.png'), fullPage: true });

    // The list shows it finished, its objective as text, not markup.
    await page.locator('header a', { hasText: 'Runs' }).click();
    const row = page.locator(`#runs tr[data-run-id="${rootId}"]`);
    await row.locator('.status[data-status="success"]').waitFor({ timeout: SEEN_MS });
    await expect(row.locator('td.objective').textContent()).resolves.toBe('Deploy <b>the</b> service');
    expect(await page.locator('#runs b').count()).toBe(0);
    await expect(row.locator('td').nth(4).textContent()).resolves.toMatch(/ s$/);
    // The list keeps itself up to date: a run enqueued meanwhile appears.
    const another = await deployment.client.enqueue(simPlan('all_success', [{}]));
    await page.locator(`#runs tr[data-run-id="${another}"]`).waitFor({ timeout: SEEN_MS });
    expect(problems).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('asks for the token when the server has one, signs in to an HttpOnly cookie, and carries on', async () => {
    const guarded = await serve(deployment, TOKEN);
    try {
      const { page, problems } = await newPage();
      await page.goto(guarded.url);
      await page.locator('#sign-in').waitFor();
      expect(await page.locator('#runs').count()).toBe(0);

      await page.locator('#token').fill('not-the-token-at-all');
      await page.locator('#sign-in button').click();
      await page.locator('#sign-in .message:has-text("not this server’s token")').waitFor({ timeout: SEEN_MS });
      // The browser reports the refused sign-in as a failed request; nothing else may fail.
      expect(problems.splice(0)).toEqual([expect.stringContaining('status of 401')]);

      await page.locator('#token').fill(TOKEN);
      await page.locator('#sign-in button').click();
      await page.locator('#runs tbody tr[data-run-id]').first().waitFor({ timeout: SEEN_MS });
      const cookies = await page.context().cookies();
      expect(cookies).toEqual([expect.objectContaining({ name: 'tierflow_token', httpOnly: true, sameSite: 'Strict' })]);
      // The page's scripts cannot read it.
      await expect(page.evaluate<string>('document.cookie')).resolves.toBe('');

      // Signed in, a page starts at once, and the queues let the browser in too.
      const [rootId] = await attributes(page.locator('#runs tbody tr[data-run-id]'), 'data-run-id');
      await page.goto(`${guarded.url}/runs/${rootId}`);
      await page.locator('#tree tbody tr').first().waitFor({ timeout: SEEN_MS });
      expect(await page.locator('#sign-in').count()).toBe(0);
      expect((await page.request.get(`${guarded.url}/queues`)).status()).toBe(200);
      expect(await page.locator('header a[href="/queues"]').count()).toBe(1);
      expect(problems).toEqual([]);
      await page.context().close();
    } finally {
      await guarded.close();
    }
  }, 60_000);
});
