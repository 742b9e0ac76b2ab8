import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { OpenAPIHono } from '@hono/zod-openapi';
import { describe, expect, it } from 'vitest';
import { TOKEN_COOKIE } from '../auth/bearer-auth.js';
import { dashboard } from './dashboard.js';
import { escapeHtml, pageShell } from './page-shell.js';

const TOKEN = 'a-token-of-sixteen-chars-or-more';

function app(token: string | null): OpenAPIHono {
  const built = new OpenAPIHono();
  dashboard(built, token);
  return built;
}

describe('the dashboard’s pages', () => {
  it('serves the runs page and a run’s page, with a policy that allows only its own scripts', async () => {
    const runs = await app(null).request('/');
    expect(runs.status).toBe(200);
    expect(runs.headers.get('content-type')).toContain('text/html');
    expect(runs.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await runs.text();
    expect(html).toContain('data-page="runs"');
    expect(html).toContain('data-signed-in="true"');
    expect(html).toContain('<script type="module" src="/assets/dashboard.js">');
    expect(html).toContain('href="/queues"');

    const run = await (await app(null).request('/runs/9f052f59-5b2f')).text();
    expect(run).toContain('data-page="run" data-run-id="9f052f59-5b2f"');

    const specialists = await (await app(null).request('/specialists?task_type=code')).text();
    expect(specialists).toContain('data-page="specialists"');
    expect(specialists).toContain('<title>Specialists · Tierflow</title>');
    // Every page's header leads to it, beside Metrics.
    expect(html).toMatch(/<a href="\/charts">Metrics<\/a>\s*<a href="\/specialists">Specialists<\/a>\s*<a href="\/webhooks">Webhooks<\/a>/);

    const webhooks = await (await app(null).request('/webhooks')).text();
    expect(webhooks).toContain('data-page="webhooks"');
    expect(webhooks).toContain('<title>Webhooks · Tierflow</title>');
  });

  it('escapes the run id it puts in the page', async () => {
    const id = encodeURIComponent('"><script>alert(1)</script>');
    const html = await (await app(null).request(`/runs/${id}`)).text();
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('data-run-id="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(escapeHtml(`<a href='x'>&</a>`)).toBe('&lt;a href=&#39;x&#39;&gt;&amp;&lt;/a&gt;');
  });

  it('starts at the sign-in form when a token is required and the request carries none that matches', async () => {
    const guarded = app(TOKEN);
    expect(await (await guarded.request('/')).text()).toContain('data-signed-in="false"');
    const wrong = await guarded.request('/', { headers: { cookie: `${TOKEN_COOKIE}=not-the-token` } });
    expect(await wrong.text()).toContain('data-signed-in="false"');
    const right = await guarded.request('/', { headers: { cookie: `${TOKEN_COOKIE}=${TOKEN}` } });
    expect(await right.text()).toContain('data-signed-in="true"');
    // The page never holds the token.
    expect(pageShell({ kind: 'runs' }, true)).not.toContain(TOKEN);
  });

  it('serves the client’s files by plain name only, with their types', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dashboard-client-'));
    try {
      await writeFile(join(dir, 'dashboard.js'), 'export {};');
      await writeFile(join(dir, 'dashboard.css'), 'body {}');
      await writeFile(join(dir, 'dashboard.d.ts'), 'export {};');
      await writeFile(join(dir, 'secret.txt'), 'no');
      const served = new OpenAPIHono();
      dashboard(served, null, pathToFileURL(`${dir}/`));
      const script = await served.request('/assets/dashboard.js');
      expect([script.status, script.headers.get('content-type'), await script.text()]).toEqual([200, 'text/javascript; charset=utf-8', 'export {};']);
      expect((await served.request('/assets/dashboard.css')).headers.get('content-type')).toContain('text/css');
      for (const path of ['/assets/..%2Fdashboard.js', '/assets/dashboard.d.ts', '/assets/secret.txt', '/assets/missing.js', '/assets/DASHBOARD.JS']) {
        expect((await served.request(path)).status, path).toBe(404);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
