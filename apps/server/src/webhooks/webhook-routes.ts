import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { cellPrefixes, readWebhookDeliveries, webhookDeliverySchema, type RedisClient } from '@tierflow/runtime/admin';
import type { RuntimeOptions } from '@tierflow/runtime';

export const deliveriesQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(500)
    .default(100)
    .openapi({ param: { name: 'limit', in: 'query' }, description: 'How many deliveries at most, newest first (100 when left out).', example: 50 }),
});

// The runtime's own schema's fields: the record is the delivery queue's jobs, read back.
export const deliveriesSchema = z
  .object({ deliveries: z.array(z.object(webhookDeliverySchema.shape).openapi('WebhookDelivery')) })
  .openapi('WebhookDeliveries', { description: 'The latest webhook deliveries of every cell, newest first (docs/operations.md#webhooks).' });

/**
 * `GET /api/webhooks/deliveries`: the latest webhook deliveries — their event, URL, attempts, and
 * the last answer or error — as the Monitors' delivery workers left them.
 */
export function webhookRoutes(app: OpenAPIHono, deps: { readonly redis: RedisClient; readonly runtime: RuntimeOptions }): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/webhooks/deliveries',
      summary: 'The latest webhook deliveries: event, URL, state, attempts, the last status or error',
      request: { query: deliveriesQuery },
      responses: {
        200: { content: { 'application/json': { schema: deliveriesSchema } }, description: 'The deliveries kept (delivered ones a day, given-up ones a week), newest first' },
      },
    }),
    async (c) => {
      const { limit } = c.req.valid('query');
      return c.json({ deliveries: await readWebhookDeliveries(deps.redis, cellPrefixes(deps.runtime), limit) }, 200);
    },
  );
}
