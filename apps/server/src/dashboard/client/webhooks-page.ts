import { getJson } from './api.js';
import type { WebhookDeliveries } from './api-types.js';
import { fill, h } from './dom.js';
import { clock, duration } from './format.js';
import { errorBanner, report, type PageContext, type StopPage } from './page.js';

/** How often the page reads the deliveries again: a retry is seconds away, not milliseconds. */
const WEBHOOKS_REFRESH_MS = 5_000;

type Delivery = WebhookDeliveries['deliveries'][number];

const COLUMNS = ['Queued', 'Event', 'Run', 'URL', 'State', 'Attempts', 'Last answer', 'Took'] as const;

/**
 * `/webhooks`: the latest deliveries of the project's webhooks (docs/operations.md#webhooks),
 * newest first, each with its state, its attempts and what the receiver last answered; read
 * again every 5 s, so a retry is seen as it happens.
 */
export function showWebhooks(context: PageContext): StopPage {
  const banner = errorBanner();
  const updated = h('span', { class: 'muted' });
  const body = h('div', { id: 'webhooks' });
  fill(context.main, h('section', { class: 'panel' }, h('div', { class: 'heading' }, h('h1', {}, 'Webhook deliveries'), updated), banner), body);

  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const refresh = async (): Promise<void> => {
    try {
      const { deliveries } = await getJson<WebhookDeliveries>('/api/webhooks/deliveries?limit=100');
      if (stopped) return;
      fill(
        body,
        deliveries.length === 0
          ? h('p', { class: 'muted', id: 'webhooks-note' }, 'No deliveries yet: a project file lists webhooks under `notify`, and each event a run sends is one delivery.')
          : table(deliveries),
      );
      banner.hidden = true;
      fill(updated, `updated ${clock(new Date().toISOString())}`);
    } catch (error) {
      if (!stopped) report(context, banner, error);
    }
    if (!stopped) timer = setTimeout(() => void refresh(), WEBHOOKS_REFRESH_MS);
  };
  void refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

function table(deliveries: readonly Delivery[]): HTMLElement {
  return h(
    'section',
    { class: 'panel' },
    h('div', { class: 'scroll' }, h('table', { class: 'webhooks' }, h('thead', {}, h('tr', {}, ...COLUMNS.map((title) => h('th', { scope: 'col' }, title)))), h('tbody', {}, ...deliveries.map(row)))),
  );
}

function row(delivery: Delivery): HTMLTableRowElement {
  return h(
    'tr',
    { 'data-event-id': delivery.event_id, 'data-state': delivery.state, 'data-type': delivery.type },
    h('td', {}, clock(new Date(delivery.queued_at).toISOString())),
    h('td', {}, delivery.type),
    h('td', { class: 'id' }, h('a', { href: `/runs/${encodeURIComponent(delivery.root_id)}` }, delivery.root_id)),
    h('td', { class: 'url' }, delivery.url),
    h('td', {}, h('span', { class: 'status', 'data-status': STATE_STATUS[delivery.state] }, delivery.state)),
    h('td', { class: 'number' }, `${delivery.attempts} of ${delivery.max_attempts}`),
    h('td', {}, lastAnswer(delivery)),
    h('td', { class: 'number' }, delivery.finished_at === null ? '' : duration(delivery.finished_at - delivery.queued_at)),
  );
}

/** The receiver's last word: its HTTP status, or why no status came (a refused connection, a timeout). */
function lastAnswer(delivery: Delivery): string {
  if (delivery.last_error !== null) return delivery.last_status === null ? delivery.last_error : `${delivery.last_status}: ${delivery.last_error}`;
  return delivery.last_status === null ? '' : String(delivery.last_status);
}

/** The run status whose colour each delivery state borrows. */
const STATE_STATUS: Readonly<Record<Delivery['state'], string>> = { pending: 'queued', retrying: 'retrying', delivered: 'success', failed: 'failed' };
