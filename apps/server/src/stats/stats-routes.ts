import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { TierflowClient } from '@tierflow/runtime';
import { errorSchema } from '../runs/run-schemas.js';
import { statsQuery, statsSchema } from './stats-schemas.js';

/**
 * `GET /api/stats`: the deployment's history per task type and specialist (success, calibration,
 * latency, tokens, cost, surprises), its routing figures and bottlenecks, for `tierflow stats`'s
 * readers over HTTP and the dashboard's Specialists page.
 */
export function statsRoutes(app: OpenAPIHono, deps: { readonly client: TierflowClient }): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/stats',
      summary: 'What the Monitor learned of each specialist, per task type: success, calibration, latency, tokens, cost, surprises; routing and bottlenecks',
      request: { query: statsQuery },
      responses: {
        200: { content: { 'application/json': { schema: statsSchema } }, description: 'The history report (no task types before any history)' },
        400: { content: { 'application/json': { schema: errorSchema } }, description: 'A task type it cannot take' },
      },
    }),
    async (c) => {
      const { task_type: taskType } = c.req.valid('query');
      return c.json(await deps.client.historyReport(taskType === undefined ? {} : { taskType }), 200);
    },
  );
}
