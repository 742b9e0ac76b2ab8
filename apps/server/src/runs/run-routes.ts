import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { type RedisClient } from '@tierflow/runtime/admin';
import { type RunListOptions, type RuntimeOptions, type TierflowClient } from '@tierflow/runtime';
import {
  answerBody,
  answerReportSchema,
  cancelBody,
  cancelReportSchema,
  enqueuedSchema,
  errorSchema,
  objectiveBody,
  rerunBody,
  rerunSchema,
  rootIdParams,
  runListQuery,
  runPageSchema,
  runSchema,
  unblockBody,
  unblockReportSchema,
  workersSchema,
} from './run-schemas.js';
import { type z } from '@hono/zod-openapi';
import { readRun, unknownRunMessage } from './run-view.js';

/** What the run routes work with: one client for the deployment, and Redis for the audit trail. */
export interface RunRouteDeps {
  readonly client: TierflowClient;
  readonly redis: RedisClient;
  readonly runtime: RuntimeOptions;
  readonly jaegerUrl: string;
}

const json = <T extends z.ZodType>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });
const failure = (description: string) => json(errorSchema, description);

const notFound = (id: string) => ({ error: { code: 'unknown_run', message: unknownRunMessage(id) } });

/** The runs API under /api: enqueue, list, read, cancel, answer, workers (a run's insides: node-routes.ts). */
export function runRoutes(app: OpenAPIHono, deps: RunRouteDeps): void {
  const { client } = deps;

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/runs',
      summary: 'Enqueue an objective',
      request: { body: { content: { 'application/json': { schema: objectiveBody } }, required: true } },
      responses: { 202: json(enqueuedSchema, 'Enqueued: the run’s root id'), 400: failure('Not a valid objective'), 413: failure('Over the deployment’s limits') },
    }),
    // A refusal (invalid_objective, input_too_large) answers with its kind's status, from onError.
    async (c) => c.json({ root_id: await client.enqueue(c.req.valid('json')) }, 202),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/runs',
      summary: 'Runs, latest first, filtered, a page at a time (docs/operations.md#finding-runs)',
      request: { query: runListQuery },
      responses: { 200: json(runPageSchema, 'A page of runs, and where the next starts'), 400: failure('A filter or cursor it cannot take') },
    }),
    // A cursor no listing gave is refused (invalid_argument: 400) from onError.
    async (c) => c.json(await client.findRuns(runFilterOf(c.req.valid('query'))), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/runs/{id}',
      summary: "A run's tree, its outcome once it has one, and its trace",
      request: { params: rootIdParams },
      responses: { 200: json(runSchema, 'The run'), 404: failure('No such run') },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      const run = await readRun(client, id, deps.jaegerUrl);
      return run ? c.json(run, 200) : c.json(notFound(id), 404);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/runs/{id}/cancel',
      summary: 'Cancel a run (or any delegation in it), its descendants too unless cascade is false',
      request: { params: rootIdParams, body: { content: { 'application/json': { schema: cancelBody } }, required: false } },
      responses: { 200: json(cancelReportSchema, 'Cancelling, or already finished'), 404: failure('No such message') },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      // The body is optional: its schema checked it when there is one.
      const options = (c.req.valid('json') as z.infer<typeof cancelBody> | undefined) ?? {};
      const report = await client.cancel(id, { reason: options.reason ?? 'cancelled over the API', ...(options.cascade === undefined ? {} : { cascade: options.cascade }) });
      if (report.outcome === 'unknown') return c.json(notFound(id), 404);
      return c.json(report.outcome === 'cancelled' ? { ...report, nodes: [...report.nodes] } : report, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/runs/{id}/answer',
      summary: 'Answer a run that waits for a person (status input_required)',
      request: { params: rootIdParams, body: { content: { 'application/json': { schema: answerBody } }, required: true } },
      responses: {
        200: json(answerReportSchema, 'Answered; `resumed` once no question is open'),
        400: failure('A blank answer, or no such open question'),
        409: failure('The run asks nothing now, or the question is answered'),
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      const { text, to } = c.req.valid('json');
      // A refusal (invalid_answer, unknown_question: 400; not_waiting, already_answered: 409) answers from onError.
      const report = await client.answer(id, text, to === undefined ? {} : { to });
      return c.json({ answered: [...report.answered], open: report.open, resumed: report.resumed }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/runs/{id}/unblock',
      summary: 'Unblock a run that waits on blocked work (status blocked)',
      request: { params: rootIdParams, body: { content: { 'application/json': { schema: unblockBody } }, required: false } },
      responses: {
        200: json(unblockReportSchema, 'Unblocked; `resumed` once no blocker is left on'),
        400: failure('A node that reported none of the run’s open blockers, or a note too long'),
        409: failure('The run is not blocked now'),
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      const body = (c.req.valid('json') as z.infer<typeof unblockBody> | undefined) ?? {};
      // A refusal (unknown_blocker, invalid_argument: 400; not_blocked: 409) answers from onError.
      const report = await client.unblock(id, { ...(body.node === undefined ? {} : { node: body.node }), ...(body.note === undefined ? {} : { note: body.note }) });
      return c.json({ unblocked: [...report.unblocked], open: report.open, resumed: report.resumed }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/runs/{id}/rerun',
      summary: 'Run a run again, linked to it: whole, or forked from one node; model calls replayed from its recording on request',
      request: { params: rootIdParams, body: { content: { 'application/json': { schema: rerunBody } }, required: false } },
      responses: {
        202: json(rerunSchema, 'Enqueued: the new run’s root id'),
        400: failure('An edit that is not one, a node that is not the run’s, a fork with an outcome to reuse missing, or an edited objective that is not valid'),
        404: failure('No such run, or its root is past retention'),
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      const body = (c.req.valid('json') as z.infer<typeof rerunBody> | undefined) ?? {};
      // A refusal (invalid_argument, invalid_objective: 400; root_not_found: 404) answers from onError.
      const rerun = await client.rerun(id, { from: body.from ?? null, replay: body.replay ?? 'off', set: body.set ?? [] });
      return c.json({ root_id: rerun.rootId, notes: [...rerun.notes] }, 202);
    },
  );

  app.openapi(createRoute({ method: 'get', path: '/api/workers', summary: 'The live worker processes, from their heartbeats', responses: { 200: json(workersSchema, 'The workers') } }), async (c) =>
    c.json({ workers: await client.workers() }, 200),
  );
}

/** The query's fields as the client's filter: only those given. */
export function runFilterOf(query: z.infer<typeof runListQuery>): RunListOptions {
  const filter = {
    status: query.status,
    text: query.text,
    taskType: query.task_type,
    specialist: query.specialist,
    model: query.model,
    errorType: query.error_type,
    since: query.since === undefined ? undefined : Date.parse(query.since),
    until: query.until === undefined ? undefined : Date.parse(query.until),
    minCostUsd: query.min_cost_usd,
    maxCostUsd: query.max_cost_usd,
    limit: query.limit,
    cursor: query.cursor,
  };
  return Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== undefined));
}
