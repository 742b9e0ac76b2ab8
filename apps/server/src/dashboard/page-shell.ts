/** Which page a shell starts: the list of runs, one run, the deployment's metrics, what it learned of its specialists, or its webhook deliveries. */
export type DashboardPage =
  { readonly kind: 'runs' } | { readonly kind: 'run'; readonly runId: string } | { readonly kind: 'metrics' } | { readonly kind: 'specialists' } | { readonly kind: 'webhooks' };

const TITLES: Readonly<Record<Exclude<DashboardPage['kind'], 'run'>, string>> = { runs: 'Runs', metrics: 'Metrics', specialists: 'Specialists', webhooks: 'Webhooks' };

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for HTML, in an element or a quoted attribute alike. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ENTITIES[char] ?? char);
}

/**
 * The policy every dashboard page is served with: its own scripts, styles and API only, never
 * framed, so run data that slipped past escaping still could not run or load anything.
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The HTML a dashboard page starts from: the header and an empty main, which the page's module
 * fills from the API. `signedIn` false (a token is required and the request carried none that
 * matches) starts at the sign-in form, so the page makes no request bound to be refused.
 */
export function pageShell(page: DashboardPage, signedIn: boolean): string {
  const title = `${page.kind === 'run' ? `Run ${page.runId}` : TITLES[page.kind]} · Tierflow`;
  // The chart library's styles, served from this server's own copy, on the page that draws charts.
  const charts = page.kind === 'metrics' ? '\n    <link rel="stylesheet" href="/assets/uplot.css">' : '';
  const runId = page.kind === 'run' ? ` data-run-id="${escapeHtml(page.runId)}"` : '';
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${escapeHtml(title)}</title>
    <link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">
    <link rel="stylesheet" href="/assets/dashboard.css">${charts}
    <script type="module" src="/assets/dashboard.js"></script>
  </head>
  <body data-page="${page.kind}"${runId} data-signed-in="${signedIn}">
    <header class="top">
      <a class="brand" href="/">Tierflow</a>
      <nav>
        <a href="/">Runs</a>
        <a href="/charts">Metrics</a>
        <a href="/specialists">Specialists</a>
        <a href="/webhooks">Webhooks</a>
        <a href="/queues">Queues</a>
        <a href="/openapi.json">API</a>
      </nav>
    </header>
    <main id="main"><noscript>This dashboard needs JavaScript.</noscript></main>
  </body>
</html>
`;
}
