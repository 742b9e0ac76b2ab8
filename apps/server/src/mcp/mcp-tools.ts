import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { runStatusSchema } from '@tierflow/runtime/admin';
import { objectiveFileSchema, type TierflowClient } from '@tierflow/runtime';
import { z } from 'zod';
import { runFilterOf } from '../runs/run-routes.js';
import { answerBody, answerReportSchema, cancelBody, cancelReportSchema, runListQuery, runPageSchema } from '../runs/run-schemas.js';
import { readRun, unknownRunMessage, type RunView } from '../runs/run-view.js';
import { answering, errorResult, jsonResult } from './mcp-results.js';

/** What the tools work with: the deployment's client, and where its traces are shown (null: nowhere). */
export interface McpToolDeps {
  readonly client: TierflowClient;
  readonly jaegerUrl: string | null;
}

const rootId = z.string().min(1).max(200).describe('The run’s root id, as enqueue_objective or list_runs gave it.');

/** What run_status answers: the run's status, the gist of its outcome, and the questions it waits on. */
export const runStatusOutput = {
  root_id: z.string(),
  status: runStatusSchema,
  outcome: z
    .object({ status: z.string(), summary: z.string().nullable(), confidence: z.number().nullable(), error_type: z.string().nullable(), error_detail: z.string().nullable() })
    .nullable()
    .describe('The gist of the final outcome once there is one (the whole of it: the resource tierflow://runs/{root_id}/outcome); null before.'),
  open_questions: z.array(z.object({ id: z.string(), question: z.string() })).describe('Questions the run waits on (status input_required): answer them with answer_questions.'),
  trace_url: z.string().nullable(),
  unserved: z.array(z.string()).describe('A line for each tier the run waits on that no live worker serves.'),
  rerun_of: z.string().nullable(),
  reruns: z.array(z.string()),
};

/** A run as run_status gives it: what GET /api/runs/{id} gives, less the tree and with the outcome cut to its gist. */
export function runStatusOf(id: string, view: RunView): z.infer<z.ZodObject<typeof runStatusOutput>> {
  const payload = view.outcome?.payload;
  return {
    root_id: id,
    status: view.run.status,
    outcome: payload
      ? { status: payload.status, summary: payload.summary ?? null, confidence: payload.confidence ?? null, error_type: payload.error_type ?? null, error_detail: payload.error_detail ?? null }
      : null,
    open_questions: (view.run.questions ?? []).filter((question) => question.answer === null).map(({ id: questionId, question }) => ({ id: questionId, question })),
    trace_url: view.trace_url,
    unserved: view.unserved,
    rerun_of: view.rerun_of,
    reruns: view.reruns,
  };
}

/** The run tools: each calls the client as the runs API's route of the same job does (runs/run-routes.ts). */
export function registerRunTools(server: McpServer, deps: McpToolDeps): void {
  const { client } = deps;

  server.registerTool(
    'enqueue_objective',
    {
      title: 'Enqueue an objective',
      description:
        'Start a run. The arguments are an objective file, as POST /api/runs and `tierflow enqueue` take it: at least `objective` (what to achieve, in words). Answers the run’s root id: follow it with run_status.',
      // The runs API's own schema: an objective the API refuses is refused here, with the same problems named.
      inputSchema: objectiveFileSchema,
      outputSchema: { root_id: z.string() },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    (objective) => answering(async () => jsonResult({ root_id: await client.enqueue(objective) })),
  );

  server.registerTool(
    'run_status',
    {
      title: 'A run’s status',
      description: 'A run’s status (queued, running, input_required, success, failed, …), the gist of its outcome once it has one, and the questions it waits on.',
      inputSchema: { root_id: rootId },
      outputSchema: runStatusOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ root_id: id }) =>
      answering(async () => {
        const view = await readRun(client, id, deps.jaegerUrl);
        return view ? jsonResult(runStatusOf(id, view)) : errorResult(unknownRunMessage(id));
      }),
  );

  server.registerTool(
    'run_tree',
    {
      title: 'A run’s tree',
      description: 'A run’s tree, as `tierflow status --json` prints it: every delegation down to the specialists, with its status, specialist, confidence, usage and progress.',
      inputSchema: { root_id: rootId },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ root_id: id }) =>
      answering(async () => {
        const tree = await client.tree(id);
        return tree ? jsonResult({ ...tree }) : errorResult(unknownRunMessage(id));
      }),
  );

  server.registerTool(
    'answer_questions',
    {
      title: 'Answer a run’s questions',
      description: 'Answer a run that waits for a person (status input_required): every open question, or one (`to`, an id from run_status). The run goes on once none is open.',
      inputSchema: {
        root_id: rootId,
        text: answerBody.shape.text.describe('The answer, in words.'),
        to: answerBody.shape.to.describe('One question’s id (run_status lists them); every open one when left out.'),
      },
      outputSchema: answerReportSchema.shape,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    ({ root_id: id, text, to }) =>
      answering(async () => {
        // A refusal (invalid_answer, unknown_question, not_waiting, already_answered) is answered as an error result.
        const report = await client.answer(id, text, to === undefined ? {} : { to });
        return jsonResult({ answered: [...report.answered], open: report.open, resumed: report.resumed });
      }),
  );

  server.registerTool(
    'cancel_run',
    {
      title: 'Cancel a run',
      description: 'Cancel a run (or any delegation in it by its id), its descendants too unless cascade is false. It ends cancelled, with its partial results.',
      inputSchema: { root_id: rootId.describe('A root id, or the id of a delegation in a run.'), ...cancelBody.shape },
      outputSchema: cancelReportSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ root_id: id, reason, cascade }) =>
      answering(async () => {
        const report = await client.cancel(id, { reason: reason ?? 'cancelled over MCP', ...(cascade === undefined ? {} : { cascade }) });
        if (report.outcome === 'unknown') return errorResult(unknownRunMessage(id));
        return jsonResult(report.outcome === 'cancelled' ? { ...report, nodes: [...report.nodes] } : { ...report });
      }),
  );

  server.registerTool(
    'list_runs',
    {
      title: 'List runs',
      description:
        'Runs, latest first, filtered as GET /api/runs filters them (status, text, task_type, specialist, model, error_type, since, until, cost), `limit` at a time (20 unless told); `cursor` is the `next_cursor` of the page before.',
      inputSchema: runListQuery,
      outputSchema: runPageSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (query) => answering(async () => jsonResult({ ...(await client.findRuns(runFilterOf(query))) })),
  );
}
