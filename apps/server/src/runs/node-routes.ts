import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { cellOf, readAuditTrail, readNodeView, readTimeline, rootIdOf } from '@tierflow/runtime/admin';
import { errorSchema, rootIdParams } from './run-schemas.js';
import type { RunRouteDeps } from './run-routes.js';
import { auditPageSchema, auditQuery, nodeParams, nodeSchema, timelineSchema } from './node-schemas.js';
import { auditPage } from './audit-page.js';
import type { z } from '@hono/zod-openapi';

const json = <T extends z.ZodType>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });

/** What is inside a run under /api/runs/{id}: one node, the run's timeline, its audit trail by pages. */
export function nodeRoutes(app: OpenAPIHono, deps: Pick<RunRouteDeps, 'redis' | 'runtime'>): void {
  const prefixOf = (rootId: string): string => cellOf(deps.runtime, rootId).prefix;

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/runs/{id}/nodes/{node}',
      summary: 'One node of a run: its input, outcome, passes, waits and model calls',
      request: { params: nodeParams },
      responses: { 200: json(nodeSchema, 'The node'), 404: json(errorSchema, 'No such node in that run') },
    }),
    async (c) => {
      const { id, node } = c.req.valid('param');
      const view = rootIdOf(node) === id ? await readNodeView(deps.redis, prefixOf(id), node, deps.runtime.signing) : null;
      if (!view) return c.json({ error: { code: 'unknown_node', message: `no node ${node} in run ${id} (unknown, or past retention)` } }, 404);
      return c.json(view, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/runs/{id}/timeline',
      summary: "A run's timeline: each node's queued, running and waiting time on one axis",
      request: { params: rootIdParams },
      responses: { 200: json(timelineSchema, 'The timeline'), 404: json(errorSchema, 'No such run') },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      const timeline = await readTimeline(deps.redis, prefixOf(id), id, deps.runtime.signing);
      if (!timeline) return c.json({ error: { code: 'unknown_run', message: `no run ${id} (unknown, or past retention)` } }, 404);
      return c.json(timeline, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/runs/{id}/audit',
      summary: "A run's audit trail, in order: all of it, or a page (`limit`, `cursor`) of some kinds (`kind`)",
      request: { params: rootIdParams, query: auditQuery },
      responses: { 200: json(auditPageSchema, 'The entries') },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      const { kind, cursor, limit } = c.req.valid('query');
      const records = await readAuditTrail(deps.redis, prefixOf(id), id);
      return c.json(auditPage(records, { ...(kind ? { kinds: kind } : {}), ...(cursor ? { cursor } : {}), ...(limit ? { limit } : {}) }), 200);
    },
  );
}
