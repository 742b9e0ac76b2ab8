import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { TOKEN_COOKIE, tokenMatches } from '../auth/bearer-auth.js';
import { DASHBOARD_CSP, pageShell, type DashboardPage } from './page-shell.js';

/**
 * Where the built client lives. Both src/dashboard (under tests) and dist/dashboard are two levels
 * below the package, so this finds dist/dashboard/client from either.
 */
const CLIENT_DIR = new URL('../../dist/dashboard/client/', import.meta.url);

/** The Metrics page: not `/metrics`, which answers Prometheus. */
export const METRICS_PAGE_PATH = '/charts';

/** The Specialists page: what the Monitor learned of each specialist, per task type. */
export const SPECIALISTS_PAGE_PATH = '/specialists';

/** The Webhooks page: the latest deliveries of the project's webhooks (docs/operations.md#webhooks). */
export const WEBHOOKS_PAGE_PATH = '/webhooks';

const CONTENT_TYPES = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8', svg: 'image/svg+xml' } as const;

/**
 * Assets served from a package rather than the client's folder: the chart library the Metrics page
 * draws with, from this server's own copy in node_modules (the page's policy allows nothing else).
 */
const VENDORED: Readonly<Record<string, URL>> = (() => {
  const require = createRequire(import.meta.url);
  return {
    'uplot.js': pathToFileURL(require.resolve('uplot/dist/uPlot.esm.js')),
    'uplot.css': pathToFileURL(require.resolve('uplot/dist/uPlot.min.css')),
  };
})();

/** An asset's name: one plain file name of the client, so no request can reach beyond its folder. */
const ASSET_NAME = /^[a-z][a-z0-9-]*\.(js|css|svg)$/;

/**
 * The web dashboard: the runs at `/`, a run at `/runs/:id`, the deployment's metrics at `/charts`
 * (`/metrics` is Prometheus's), its specialists' history at `/specialists`, its webhook deliveries at `/webhooks`, and the client's module, styles and icon under `/assets/`. Pages and assets hold nothing of any run (the page's module reads the API
 * with the browser's credentials), so they are open; a page tells its module whether to start at
 * the sign-in form.
 */
export function dashboard(app: OpenAPIHono, token: string | null, clientDir: URL = CLIENT_DIR): void {
  const page = (c: Context, which: DashboardPage): Response => {
    const cookie = getCookie(c, TOKEN_COOKIE);
    const signedIn = token === null || (cookie !== undefined && tokenMatches(cookie, token));
    c.header('content-security-policy', DASHBOARD_CSP);
    c.header('x-content-type-options', 'nosniff');
    c.header('referrer-policy', 'no-referrer');
    c.header('cache-control', 'no-store');
    return c.html(pageShell(which, signedIn));
  };
  app.get('/', (c) => page(c, { kind: 'runs' }));
  app.get('/runs/:id', (c) => page(c, { kind: 'run', runId: c.req.param('id') }));
  app.get(METRICS_PAGE_PATH, (c) => page(c, { kind: 'metrics' }));
  app.get(SPECIALISTS_PAGE_PATH, (c) => page(c, { kind: 'specialists' }));
  app.get(WEBHOOKS_PAGE_PATH, (c) => page(c, { kind: 'webhooks' }));

  const assets = new Map<string, Promise<Buffer | null>>();
  app.get('/assets/:name', async (c) => {
    const name = c.req.param('name');
    const extension = ASSET_NAME.exec(name)?.[1] as keyof typeof CONTENT_TYPES | undefined;
    if (extension === undefined) return c.text('not found', 404);
    // Read once: the files change only with a new build, and a new build means a new process.
    let body = assets.get(name);
    if (!body) {
      body = readFile(VENDORED[name] ?? new URL(name, clientDir)).catch(() => null);
      assets.set(name, body);
    }
    const content = await body;
    if (content === null) return c.text('not found', 404);
    return c.body(new Uint8Array(content), 200, { 'content-type': CONTENT_TYPES[extension], 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' });
  });
}
