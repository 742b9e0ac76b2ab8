import { z } from '@hono/zod-openapi';
import { outcomeMessageSchema } from '@tierflow/protocol';
import { AUDIT_KINDS, CASCADE_SIGNALS, REPLAY_MODES, runStatusSchema, workerBeatSchema, type AuditRecord } from '@tierflow/runtime/admin';
import { objectiveFileSchema } from '@tierflow/runtime';

/** An error as every route answers one: a stable code and a sentence. */
export const errorSchema = z.object({ error: z.object({ code: z.string(), message: z.string(), problems: z.array(z.string()).optional() }) }).openapi('Error');

export const rootIdParams = z.object({
  id: z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name: 'id', in: 'path' }, example: 'ec36a528-5b2f-4c7e-9a55-0b1c2d3e4f50' }),
});

// The runtime's own schemas are used as they are (they carry `.meta()` descriptions, not `.openapi()`).
export const objectiveBody = objectiveFileSchema.meta({ description: 'An objective file, as `tierflow enqueue` takes it (docs/operations.md#the-objective-file).' });

export const enqueuedSchema = z.object({ root_id: z.string() }).openapi('Enqueued');

export const runSummarySchema = z
  .object({
    root_id: z.string(),
    status: runStatusSchema,
    queue_state: z.string().openapi({ description: "For debugging: BullMQ's state of the root job (`prioritized`, `waiting-children`, …); `status` is what it means (docs/statuses.md)." }),
    objective: z.string(),
    submitted_at: z.string(),
    finished_at: z.string().nullable(),
    duration_ms: z.number().nullable(),
    tokens: z.number().openapi({ description: "Tokens in and out of every model call of the run so far, from its budget's count; 0 for a run that made none." }),
    cost_usd: z.number().openapi({ description: 'What those calls cost, in USD.' }),
  })
  .openapi('RunSummary');

const query = (name: string, description: string, example?: string | number) => ({ param: { name, in: 'query' as const }, description, ...(example === undefined ? {} : { example }) });
const name = (param: string, what: string) =>
  z
    .string()
    .min(1)
    .max(200)
    .optional()
    .openapi(query(param, `Only runs with ${what} anywhere in their tree.`));
const time = (param: string, what: string) =>
  z.iso
    .datetime({ offset: true })
    .optional()
    .openapi(query(param, `Only runs submitted ${what} this time (ISO 8601).`, '2026-01-31T09:00:00Z'));
const usd = (param: string, what: string) =>
  z.coerce
    .number()
    .min(0)
    .optional()
    .openapi(query(param, `Only runs whose model calls cost ${what} this many USD.`, 0.05));

/** GET /api/runs's filters, page size and cursor (docs/operations.md#finding-runs). */
export const runListQuery = z.object({
  status: runStatusSchema.optional(),
  text: z.string().min(1).max(200).optional().openapi(query('text', 'Only runs whose objective holds this text, in any case.')),
  task_type: name('task_type', 'a delegation of this task type'),
  specialist: name('specialist', 'an outcome from this specialist'),
  model: name('model', 'an outcome from this model'),
  error_type: name('error_type', 'an outcome of this error type'),
  since: time('since', 'at or after'),
  until: time('until', 'at or before'),
  min_cost_usd: usd('min_cost_usd', 'at least'),
  max_cost_usd: usd('max_cost_usd', 'at most'),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000)
    .optional()
    .openapi(query('limit', 'At most this many runs (20 unless told).', 20)),
  cursor: z.string().min(1).max(400).optional().openapi(query('cursor', 'The `next_cursor` of the page before: this page starts after it.')),
});

export const runPageSchema = z
  .object({
    runs: z.array(runSummarySchema),
    next_cursor: z.string().nullable().openapi({ description: 'Where the next page starts (pass it as `cursor`); null when no run further back matches.' }),
  })
  .openapi('RunPage');

const questionSchema = z.object({ id: z.string(), question: z.string(), tier: z.string(), answer: z.string().nullable() }).openapi('Question');

const blockerSchema = z
  .object({ id: z.string(), blocker: z.string(), tier: z.string(), unblocked: z.string().nullable().openapi({ description: 'The note it was lifted with; null while it is on.' }) })
  .openapi('Blocker');

/** A node of a run's tree, as `tierflow status --json` prints it (its children are nodes too). */
export const runNodeSchema = z
  .object({
    id: z.string(),
    tier: z.string(),
    task_type: z.string(),
    specialist: z.string().nullable(),
    status: runStatusSchema,
    source: z.string(),
    queue_state: z.string().nullable().openapi({ description: "For debugging: BullMQ's state of the node's job while retained, null once gone; `status` is what it means (docs/statuses.md)." }),
    confidence: z.number().nullable(),
    // Not named: the OpenAPI generator drops the null of a named schema made nullable.
    usage: z.object({ tokens_in: z.number(), tokens_out: z.number(), cost_usd: z.number(), llm_calls: z.number() }).nullable(),
    progress: z.object({ percent: z.number().nullable(), note: z.string().nullable(), at: z.string() }).nullable(),
    attempts: z.number(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
    // A getter, so the schema can name itself: its children are nodes too.
    get children(): z.ZodArray<typeof runNodeSchema> {
      return z.array(runNodeSchema);
    },
    questions: z.array(questionSchema).optional(),
    waiting_until: z.string().optional(),
    blockers: z.array(blockerSchema).optional().openapi({ description: 'At the root of a run waiting on blocked work (status blocked, no outcome yet): what blocks it.' }),
    blocked_since: z.string().optional(),
    cascade: z
      .object({
        signal: z.enum(CASCADE_SIGNALS),
        confidence: z.number(),
        threshold: z.number(),
        checked_by: z.string(),
      })
      .optional()
      .openapi({
        description: "The confidence cascade's word on this node's outcome, where a tier above flagged it (`low_confidence`), held it for review (`needs_review`) or rejected it (`rejected`).",
      }),
    rejection: z
      .object({ reason: z.string().nullable() })
      .optional()
      .openapi({ description: "The node's agent rejected the handoff before starting (`handoff_rejected`): why, null once only the audit trail remembers it." }),
  })
  .openapi('RunNode');

export const runSchema = z
  .object({
    run: runNodeSchema,
    outcome: outcomeMessageSchema.nullable().meta({ description: 'The final outcome message once there is one.' }),
    trace_url: z.string().nullable().openapi({ description: "The run's trace in Jaeger, once spans of it reached a collector; null before (or when none ever will)." }),
    unserved: z.array(z.string()).openapi({
      description: 'A line for each tier the run waits on that no live worker serves, from the heartbeats ("no monitor worker is running: …"); empty otherwise.',
    }),
    rerun_of: z.string().nullable().openapi({ description: 'The run this one reruns (docs/operations.md#rerun-fork-and-replay); null when it reruns none.' }),
    reruns: z.array(z.string()).openapi({ description: 'The runs that rerun this one.' }),
  })
  .openapi('Run');

export const rerunBody = z
  .object({
    from: z
      .string()
      .min(1)
      .optional()
      .openapi({ description: 'A node of the run to fork from: it and its subtree run again, the recorded outcomes of the others are reused. The whole run when left out.' }),
    replay: z
      .enum(REPLAY_MODES)
      .optional()
      .openapi({ description: 'Answer model calls from the recording: `loose` (a call that matches nothing goes to the model) or `strict` (it fails, `replay_miss`); `off` by default.' }),
    set: z
      .array(z.string())
      .max(100)
      .optional()
      .openapi({ description: '`path=value` edits, as `tierflow rerun --set` takes them: to the objective, or with `from` to that node’s delegation.', example: ['objective="write it again"'] }),
  })
  .openapi('RerunRequest');

export const rerunSchema = z
  .object({ root_id: z.string(), notes: z.array(z.string()).openapi({ description: 'What the caller should know: recorded calls that cannot be replayed, say.' }) })
  .openapi('Rerun');

export const cancelBody = z.object({ reason: z.string().max(500).optional(), cascade: z.boolean().optional() }).openapi('CancelRequest');

export const cancelReportSchema = z.looseObject({ outcome: z.enum(['cancelled', 'finished', 'unknown']), target: z.string() }).openapi('CancelReport');

export const answerBody = z.object({ text: z.string(), to: z.string().optional().openapi({ description: 'One question (its id); every open one when left out.' }) }).openapi('AnswerRequest');

export const answerReportSchema = z.object({ answered: z.array(z.string()), open: z.number(), resumed: z.boolean() }).openapi('AnswerReport');

export const unblockBody = z
  .object({
    node: z.string().max(200).optional().openapi({ description: 'Lift the blockers reported at or below this node (its id); every open one when left out.' }),
    note: z.string().max(4_000).optional().openapi({ description: 'What changed: handed to the work sent again, in `task_data.unblocked`.' }),
  })
  .openapi('UnblockRequest');

export const unblockReportSchema = z.object({ unblocked: z.array(z.string()), open: z.number(), resumed: z.boolean() }).openapi('UnblockReport');

/**
 * An entry of a run's audit trail, as the runtime reads it back (a field it could not read is
 * empty, or null). Its fields are the runtime's AuditRecord's: one added or dropped there and not
 * here fails to compile.
 */
export const auditEntrySchema = z
  .object({
    stream_id: z.string().openapi({ description: "The entry's id in the run's audit stream, which gives the order." }),
    time: z.string(),
    from: z.string().openapi({ description: 'A tier, or `client` for whoever is outside the tiers.' }),
    to: z.string(),
    kind: z.string().openapi({ description: `One of ${AUDIT_KINDS.map((kind) => `\`${kind}\``).join(', ')}.` }),
    direction: z.string().openapi({ description: '`sent` or `received`.' }),
    id: z.string().openapi({ description: 'The message id.' }),
    correlation_id: z.string(),
    status: z.string().openapi({ description: "An outcome's status; empty otherwise." }),
    confidence: z.number().nullable(),
    by: z.string(),
    attempt: z.number().nullable().openapi({ description: "A delivery's attempt number, for delegations received." }),
    detail: z.string().openapi({ description: "A delegation's task type, an outcome's error type, a cancellation's reason, a decision in a line." }),
    data: z.record(z.string(), z.unknown()).optional().openapi({
      description:
        "A decision's own record (a routing decision: mode, chosen, reason, fixed, learned, expected_gain, scores); a handoff's governance attestation (`attestation`), a security finding's kind and severity, a refusal's error type; absent where there is none.",
    }),
    hash: z.string().optional().openapi({ description: "The entry's link in the run's hash chain (`tierflow audit <root> --verify`); absent from entries written before trails were chained." }),
  } satisfies Record<keyof AuditRecord, z.ZodType>)
  .openapi('AuditEntry');

export const workersSchema = z.object({ workers: z.array(workerBeatSchema) }).openapi('Workers');
