import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { HonoAdapter } from '@bull-board/hono';
import { serveStatic } from '@hono/node-server/serve-static';
import { DEAD_LETTER_QUEUE, QUEUE_OF } from '@tierflow/runtime';
import { Queue } from 'bullmq';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { RedisClient } from '@tierflow/runtime';

/** Where Bull Board answers. */
export const QUEUES_PATH = '/queues';

/**
 * Bull Board at /queues, over the four tier queues and the dead-letter queue of each cell: the raw
 * jobs, for an operator who wants to see beneath the runs. Returns the queues, for the server to close.
 */
export function queueBoard(app: OpenAPIHono, redis: RedisClient, prefixes: readonly string[]): Queue[] {
  const names = [...Object.values(QUEUE_OF), DEAD_LETTER_QUEUE];
  const cells = prefixes.map((prefix) => ({ prefix, queues: names.map((name) => new Queue(name, { connection: redis, prefix })) }));
  const queues = cells.flatMap((cell) => cell.queues);
  // BullMQ reports a lost connection on every queue: the server's own client says it once.
  for (const queue of queues) queue.on('error', () => undefined);
  const adapter = new HonoAdapter(serveStatic).setBasePath(QUEUES_PATH);
  // With several cells, each cell's queues are told apart by its prefix (`{tierflow:1}:fleet`).
  const adapters = cells.flatMap(({ prefix, queues: own }) => own.map((queue) => new BullMQAdapter(queue, prefixes.length > 1 ? { prefix: `${prefix}:` } : {})));
  createBullBoard({ queues: adapters, serverAdapter: adapter, options: { uiConfig: { boardTitle: 'Tierflow queues' } } });
  app.route(QUEUES_PATH, adapter.registerPlugin());
  return queues;
}
