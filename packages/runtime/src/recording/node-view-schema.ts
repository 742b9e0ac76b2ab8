import { usageSchema } from '@tierflow/protocol';
import { z } from 'zod';
import { TOOL_CALL_ENDS } from '../policy/tool-calls.js';
import { RECORD_MODES } from '../config/record-mode.js';
import { PASS_ENDS } from './record-entry.js';
import type { Wait } from './node-record.js';

/**
 * One node as `tierflow inspect --json` prints it and `GET /api/runs/{root}/nodes/{node}` answers
 * (docs/operations.md#inspecting-a-node): what its tree, its job and its recording know of it.
 * A value recorded by its size and hash only (`TIERFLOW_RECORD=metadata`, or too large to keep)
 * comes as `digest`, its fields left empty.
 */

const digestSchema = z.object({ bytes: z.number(), sha256: z.string() }).meta({ description: 'A value kept by its size and hash only.' });
const at = z.number().nullable().meta({ description: 'ms since the epoch' });

export const nodeInputSchema = z
  .object({
    from: z.enum(['recording', 'job']).meta({ description: 'The recording of the delegation as the node took it up, or its job (still retained) when nothing was recorded.' }),
    digest: digestSchema.nullable(),
    objective: z.string().nullable(),
    constraints: z.array(z.string()),
    task_data: z.record(z.string(), z.unknown()).nullable(),
    context: z.array(z.object({ ref: z.string(), value: z.unknown().meta({ description: 'Its value when the node took the work up; null: gone, or not recorded.' }) })),
    error_policy: z.record(z.string(), z.unknown()).nullable(),
    timeout_ms: z.number().nullable(),
    deadline_hint: z.string().nullable(),
    specialist_hint: z.string().nullable(),
    routing: z
      .record(z.string(), z.unknown())
      .nullable()
      .meta({ description: 'How the Dispatcher chose the specialist (its routing decision: mode, chosen, reason, fixed, learned, expected_gain, scores); null when the delegation carries none.' }),
    priority: z.number().nullable(),
    thread_id: z.string().optional().meta({ description: 'The conversation or thread the work belongs to; absent when the delegation names none.' }),
    handoff: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: 'Its handoff constraints (tone_isolation, cascade_check, max_context_tokens: docs/protocol.md#handoff-metadata); absent when it carries none.' }),
    edits: z.array(z.string()).meta({ description: '`tierflow rerun --set` edits applied to it, as `path=json`.' }),
    attempt: z.number().nullable(),
    at,
  })
  .meta({ title: 'NodeInput' });

export const nodeArtifactSchema = z.object({
  artifact_type: z.string(),
  content_ref: z.string().nullable(),
  inline_content: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
});

export const nodeMetadataSchema = z
  .object({
    format: z.string().optional(),
    sources_count: z.number().optional(),
    data_freshness: z.string().optional(),
    gaps: z.array(z.string()).optional(),
    assumptions: z.array(z.string()).optional(),
  })
  .meta({ title: 'NodeMetadata' });

export const nodeOutcomeSchema = z
  .object({
    from: z.enum(['recording', 'job']),
    digest: digestSchema.nullable(),
    status: z.string().nullable(),
    summary: z.string().nullable(),
    confidence: z.number().nullable(),
    error_type: z.string().nullable(),
    error_detail: z.string().nullable(),
    artifacts: z.array(nodeArtifactSchema),
    usage: usageSchema.nullable(),
    execution_time_ms: z.number().nullable(),
    metadata: nodeMetadataSchema.optional().meta({ description: 'What the outcome says of the work behind it (docs/protocol.md#handoff-metadata); absent when it says nothing.' }),
    at,
  })
  .meta({ title: 'NodeOutcome' });

export const nodePassSchema = z.object({
  started_at: z.number(),
  ended_at: z.number(),
  duration_ms: z.number(),
  worker: z.string(),
  attempt: z.number(),
  end: z.enum(PASS_ENDS).meta({
    description: 'How it ended: answered, parked for its children, asked a person, deferred (waited off its worker for its model), to be retried, or stopped by an error (BullMQ runs the job again).',
  }),
  error: z.string().nullable(),
});

export const WAIT_KINDS = ['queued', 'children', 'person', 'model', 'retry'] as const satisfies readonly Wait['kind'][];
export const nodeWaitSchema = z.object({ kind: z.enum(WAIT_KINDS), from: z.number(), to: at.meta({ description: 'null: still waiting' }) });

export const chatMessageSchema = z.object({ role: z.string(), content: z.string() });

export const nodeCallSchema = z
  .object({
    purpose: z.enum(['specialist', 'planner']),
    endpoint: z.string(),
    model: z.string(),
    started_at: z.number(),
    latency_ms: z.number(),
    tries: z.number(),
    waits_ms: z.array(z.number()).meta({ description: "Each wait: for the model's shared limits, a Retry-After, an unreachable endpoint." }),
    replayed: z.boolean(),
    estimated: z.boolean(),
    error: z.string().nullable(),
    usage: usageSchema,
    request_hash: z.string(),
    messages: z.array(chatMessageSchema).nullable().meta({ description: 'The prompt: the request’s messages, each content as text; null when not recorded.' }),
    params: z.record(z.string(), z.unknown()).nullable(),
    request_digest: digestSchema.nullable(),
    answer: z.string().nullable().meta({ description: 'The answer’s text (or structured output as JSON text); null when the call failed or it was not recorded.' }),
    finish_reason: z.string().nullable(),
    answer_digest: digestSchema.nullable(),
  })
  .meta({ title: 'NodeCall' });

export const nodeToolCallSchema = z
  .object({
    name: z.string(),
    call_id: z.string(),
    caller: z.string().meta({ description: '`fleet:<specialist>`' }),
    arguments: z.unknown().meta({ description: 'The arguments the tool got; null when not recorded.' }),
    arguments_digest: digestSchema.nullable(),
    result: z.string().nullable().meta({ description: 'What the model was handed back; null when not recorded.' }),
    result_digest: digestSchema.nullable(),
    result_bytes: z.number(),
    end: z.enum(TOOL_CALL_ENDS),
    error: z.string().nullable(),
    started_at: z.number(),
    latency_ms: z.number(),
    replayed: z.boolean().meta({ description: 'Answered from the recording of the run a rerun replays: the tool did not run.' }),
  })
  .meta({ title: 'NodeToolCall' });

export const nodeViewSchema = z
  .object({
    id: z.string(),
    root_id: z.string(),
    tier: z.string().nullable(),
    status: z.string().nullable().meta({ description: 'A word of the status vocabulary (docs/statuses.md), as the run’s tree has it; null when the tree does not know the node.' }),
    source: z.string().nullable(),
    queue_state: z.string().nullable(),
    task_type: z.string().nullable(),
    specialist: z.string().nullable(),
    attempts: z.number(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
    children: z.array(z.string()),
    recording: z.enum(RECORD_MODES).meta({ description: 'What was recorded of the node: `none` when recording was off, or the run is older than recording.' }),
    skipped: z.number().meta({ description: 'Entries of the run’s recording that could not be read.' }),
    reused_from: z.string().nullable().meta({ description: 'In a fork: the node whose recorded outcome it answered with, without running.' }),
    input: nodeInputSchema.nullable(),
    outcome: nodeOutcomeSchema.nullable(),
    passes: z.array(nodePassSchema),
    waits: z.array(nodeWaitSchema),
    calls: z.array(nodeCallSchema),
    tools: z.array(nodeToolCallSchema).meta({ description: 'Its tool calls (an LLM specialist’s tool loop), in order.' }),
  })
  .meta({ title: 'NodeView' });

export type NodeView = z.output<typeof nodeViewSchema>;
export type NodeInput = z.output<typeof nodeInputSchema>;
export type NodeOutcome = z.output<typeof nodeOutcomeSchema>;
export type NodeCall = z.output<typeof nodeCallSchema>;
export type NodeToolCall = z.output<typeof nodeToolCallSchema>;
export type NodePass = z.output<typeof nodePassSchema>;
export type NodeWait = z.output<typeof nodeWaitSchema>;
export type ChatMessage = z.output<typeof chatMessageSchema>;
export type NodeArtifact = z.output<typeof nodeArtifactSchema>;
export type NodeMetadata = z.output<typeof nodeMetadataSchema>;
