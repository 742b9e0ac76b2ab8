import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { HonoAdapter } from '@bull-board/hono';
import { serveStatic } from '@hono/node-server/serve-static';
import { DEAD_LETTER_QUEUE, QUEUE_OF } from '@tierflow/runtime/admin';
import { type Queue } from 'bullmq';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { RedisClient } from '@tierflow/runtime/admin';
import type { MiddlewareHandler } from 'hono';
import { bullQueue } from '@tierflow/runtime/admin';

/** Where Bull Board answers. */
export const QUEUES_PATH = '/queues';

/** Reads only: Bull Board's every change to a queue is a POST, PUT, PATCH or DELETE. */
const readOnly: MiddlewareHandler = async (c, next) => {
  if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
  return c.json({ error: { code: 'read_only', message: 'Bull Board is read-only here (TIERFLOW_SERVE_QUEUE_ACTIONS=1 lets it change the queues)' } }, 405);
};

/**
 * Bull Board at /queues, over the four tier queues and the dead-letter queue of each cell: the raw
 * jobs, for an operator who wants to see beneath the runs. Read-only unless `actions` (retrying,
 * adding, cleaning, pausing jobs bypasses every check a run's messages get): then every request
 * that could change a queue is refused before Bull Board sees it, and Bull Board's own read-only
 * mode hides its buttons. Returns the queues, for the server to close.
 */
export function queueBoard(app: OpenAPIHono, redis: RedisClient, prefixes: readonly string[], actions = false): Queue[] {
  const names = [...Object.values(QUEUE_OF), DEAD_LETTER_QUEUE];
  const cells = prefixes.map((prefix) => ({ prefix, queues: names.map((name) => bullQueue(name, redis, prefix)) }));
  const queues = cells.flatMap((cell) => cell.queues);
  // BullMQ reports a lost connection on every queue: the server's own client says it once.
  for (const queue of queues) queue.on('error', () => undefined);
  const adapter = new HonoAdapter(serveStatic).setBasePath(QUEUES_PATH);
  // With several cells, each cell's queues are told apart by its prefix (`{tierflow:1}:fleet`).
  const adapters = cells.flatMap(({ prefix, queues: own }) => own.map((queue) => new BullMQAdapter(queue, { readOnlyMode: !actions, ...(prefixes.length > 1 ? { prefix: `${prefix}:` } : {}) })));
  if (!actions) {
    app.use(QUEUES_PATH, readOnly);
    app.use(`${QUEUES_PATH}/*`, readOnly);
  }
  createBullBoard({ queues: adapters, serverAdapter: adapter, options: { uiConfig: { boardTitle: 'Tierflow queues' } } });
  app.route(QUEUES_PATH, adapter.registerPlugin());
  return queues;
}
