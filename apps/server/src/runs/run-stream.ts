import type { OpenAPIHono } from '@hono/zod-openapi';
import { finished, nodeEvents } from '@tierflow/runtime/admin';
import { type TierflowClient } from '@tierflow/runtime';
import { streamSSE } from 'hono/streaming';
import { rootIdParams } from './run-schemas.js';

/** How often a stream reads the run's tree again: as `tierflow watch` does. */
export const STREAM_INTERVAL_MS = 500;

/** A comment line after this long without an event, so proxies that cut idle connections keep a quiet run's stream (one waiting for a person, say). */
export const KEEP_ALIVE_MS = 15_000;

/**
 * `GET /api/runs/{id}/events`: the run as it goes, as Server-Sent Events. A `node` event for each
 * node that appeared or changed (status, progress, attempts, usage, questions; the first read
 * sends every node), then one `outcome` event with the final outcome, and the stream ends. An
 * unknown run gets one `error` event; a quiet run, a comment line every 15 s. Each stream reads
 * the tree on its own, every half second, so any server behind a load balancer can serve it.
 */
export function runStream(
  app: OpenAPIHono,
  client: Pick<TierflowClient, 'tree' | 'result'>,
  timing: { intervalMs: number; keepAliveMs: number } = { intervalMs: STREAM_INTERVAL_MS, keepAliveMs: KEEP_ALIVE_MS },
): void {
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: '/api/runs/{id}/events',
    summary: "A run's events as Server-Sent Events: `node` as nodes change, then `outcome`",
    request: { params: rootIdParams },
    responses: { 200: { description: 'An event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } } },
  });
  app.get('/api/runs/:id/events', (c) => {
    const id = c.req.param('id');
    return streamSSE(c, async (stream) => {
      const seen = new Map<string, string>();
      let open = true;
      let wroteAt = Date.now();
      stream.onAbort(() => {
        open = false;
      });
      while (open) {
        const tree = await client.tree(id);
        if (!tree) {
          await stream.writeSSE({ event: 'error', data: JSON.stringify({ code: 'unknown_run', message: `no run ${id} (unknown, or past retention)` }) });
          return;
        }
        for (const event of nodeEvents(tree, seen)) {
          await stream.writeSSE({ event: 'node', data: JSON.stringify(event) });
          wroteAt = Date.now();
        }
        if (finished(tree)) {
          const outcome = await client.result(id);
          await stream.writeSSE({ event: 'outcome', data: JSON.stringify({ root_id: id, status: outcome?.payload.status ?? tree.status, outcome }) });
          return;
        }
        if (Date.now() - wroteAt >= timing.keepAliveMs) {
          await stream.write(': keep-alive\n\n');
          wroteAt = Date.now();
        }
        await stream.sleep(timing.intervalMs);
      }
    });
  });
}
