import { usageOf } from '@tierflow/core';
import { isJsonObject } from '@tierflow/protocol';
import type { RunNode } from '../audit/run-tree-merge.js';
import { isDigest } from './bounded.js';
import type { NodeRecord } from './node-record.js';
import type { CallEntry, DelegationEntry, OutcomeEntry, ToolEntry } from './record-entry.js';
import type { RecordMode } from '../config/record-mode.js';
import type { ChatMessage, NodeArtifact, NodeCall, NodeInput, NodeMetadata, NodeOutcome, NodeToolCall, NodeView } from './node-view-schema.js';

/** What the queue still holds of a node's job: its data (the delegation, or a root's objective record) and its return value. */
export interface NodeJob {
  readonly data: unknown;
  readonly returnvalue: unknown;
}

/** Everything known of one node, read at the edge; each part may be missing. */
export interface NodeFacts {
  readonly rootId: string;
  readonly nodeId: string;
  /** The node in its run's tree. */
  readonly tree: RunNode | null;
  readonly job: NodeJob | null;
  readonly record: NodeRecord | null;
  /** Entries of the run's recording that could not be read. */
  readonly skipped: number;
}

/** The node as `tierflow inspect` shows it (pure): the recording first, the job where nothing was recorded, the tree for its status. */
export function nodeView(facts: NodeFacts): NodeView {
  const { tree, job, record } = facts;
  const delegation = record?.delegation ?? null;
  const outcome = record?.outcome ?? null;
  return {
    id: facts.nodeId,
    root_id: facts.rootId,
    tier: tree?.tier ?? record?.tier ?? null,
    status: tree?.status ?? null,
    source: tree?.source ?? null,
    queue_state: tree?.queue_state ?? null,
    task_type: tree?.task_type ?? stringOr(payloadOf(delegation?.message)?.task_type),
    specialist: tree?.specialist ?? null,
    attempts: tree?.attempts ?? record?.passes.length ?? 0,
    started_at: tree?.started_at ?? null,
    finished_at: tree?.finished_at ?? null,
    children: tree?.children.map((child) => child.id) ?? [],
    recording: recordingOf(record),
    skipped: facts.skipped,
    reused_from: record?.reused_from ?? null,
    input: delegation ? recordedInput(delegation) : job ? jobInput(job.data) : null,
    outcome: outcome ? recordedOutcome(outcome) : job && isJsonObject(job.returnvalue) ? outcomeOf(job.returnvalue, 'job', null) : null,
    passes: (record?.passes ?? []).map((pass) => ({
      started_at: pass.started_at,
      ended_at: pass.ended_at,
      duration_ms: Math.max(0, pass.ended_at - pass.started_at),
      worker: pass.worker,
      attempt: pass.attempt,
      end: pass.end,
      error: pass.error,
    })),
    waits: [...(record?.waits ?? [])],
    calls: (record?.calls ?? []).map(callView),
    tools: (record?.tools ?? []).map(toolView),
  };
}

function toolView(call: ToolEntry): NodeToolCall {
  return {
    name: call.name,
    call_id: call.call_id,
    caller: call.caller,
    arguments: isDigest(call.arguments) ? null : (call.arguments ?? null),
    arguments_digest: isDigest(call.arguments) ? call.arguments.$digest : null,
    result: isDigest(call.result) ? null : textOf(call.result),
    result_digest: isDigest(call.result) ? call.result.$digest : null,
    result_bytes: call.result_bytes,
    end: call.end,
    error: call.error,
    started_at: call.started_at,
    latency_ms: call.latency_ms,
    replayed: call.replayed,
  };
}

/** What was recorded of a node: nothing, its values by size and hash (`metadata`), or in full. */
function recordingOf(record: NodeRecord | null): RecordMode {
  if (!record) return 'none';
  const messages = [record.delegation?.message, record.outcome?.message, ...record.calls.map((call) => call.request)].filter((value) => value !== undefined);
  return messages.length > 0 && messages.every(isDigest) ? 'metadata' : 'full';
}

function recordedInput(entry: DelegationEntry): NodeInput {
  const base = inputOf(payloadOf(entry.message), 'recording', isDigest(entry.message) ? entry.message.$digest : null);
  const refs = base.context.map((item) => item.ref);
  // The values recorded for the node's references, and any recorded beyond them.
  const names = [...refs, ...Object.keys(entry.context).filter((ref) => !refs.includes(ref))];
  return { ...base, context: names.map((ref) => ({ ref, value: entry.context[ref] ?? null })), edits: [...entry.edits], attempt: entry.attempt, at: entry.at };
}

/** A job's data: a delegation message, or the Monitor's root record (`{ kind: 'root', objective }`). */
function jobInput(data: unknown): NodeInput {
  const record = isJsonObject(data) ? data : {};
  const payload = isJsonObject(record.payload) ? record.payload : isJsonObject(record.objective) ? record.objective : null;
  return inputOf(payload, 'job', null);
}

function inputOf(payload: Record<string, unknown> | null, from: NodeInput['from'], digest: NodeInput['digest']): NodeInput {
  const p = payload ?? {};
  return {
    from,
    digest,
    objective: stringOr(p.objective),
    constraints: Array.isArray(p.constraints) ? p.constraints.map(String) : [],
    task_data: isJsonObject(p.task_data) ? p.task_data : null,
    context: Array.isArray(p.context_refs) ? p.context_refs.map((ref) => ({ ref: String(ref), value: null })) : [],
    error_policy: isJsonObject(p.error_policy) ? p.error_policy : null,
    timeout_ms: numberOr(p.timeout_ms),
    deadline_hint: stringOr(p.deadline_hint),
    specialist_hint: stringOr(p.specialist_hint),
    routing: isJsonObject(p.routing) ? p.routing : null,
    priority: numberOr(p.priority),
    ...(typeof p.thread_id === 'string' ? { thread_id: p.thread_id } : {}),
    ...(isJsonObject(p.handoff) && Object.keys(p.handoff).length > 0 ? { handoff: p.handoff } : {}),
    edits: [],
    attempt: null,
    at: null,
  };
}

function recordedOutcome(entry: OutcomeEntry): NodeOutcome {
  const message = entry.message;
  if (isDigest(message)) return { ...outcomeOf({}, 'recording', entry.at), digest: message.$digest };
  return outcomeOf(isJsonObject(message) ? message : {}, 'recording', entry.at);
}

/** An outcome message, read field by field: a recorded one may have had texts cut. */
function outcomeOf(message: Record<string, unknown>, from: NodeOutcome['from'], at: number | null): NodeOutcome {
  const p = isJsonObject(message.payload) ? message.payload : {};
  const usage = isJsonObject(p.resources_used) && isJsonObject(p.resources_used.usage) ? usageOf(p.resources_used) : null;
  return {
    from,
    digest: null,
    status: stringOr(p.status),
    summary: stringOr(p.summary),
    confidence: numberOr(p.confidence),
    error_type: stringOr(p.error_type),
    error_detail: stringOr(p.error_detail),
    artifacts: Array.isArray(p.artifacts) ? p.artifacts.filter(isJsonObject).map(artifactOf) : [],
    usage,
    execution_time_ms: numberOr(p.execution_time_ms),
    ...metadataOf(p),
    at,
  };
}

/** The handoff metadata an outcome carries, read field by field; nothing when it carries none. */
function metadataOf(p: Record<string, unknown>): { metadata?: NodeMetadata } {
  const strings = (value: unknown): string[] | undefined => (Array.isArray(value) ? value.map(String) : undefined);
  const metadata: NodeMetadata = {
    ...(typeof p.format === 'string' ? { format: p.format } : {}),
    ...(typeof p.sources_count === 'number' ? { sources_count: p.sources_count } : {}),
    ...(typeof p.data_freshness === 'string' ? { data_freshness: p.data_freshness } : {}),
    ...(strings(p.gaps) ? { gaps: strings(p.gaps) } : {}),
    ...(strings(p.assumptions) ? { assumptions: strings(p.assumptions) } : {}),
  };
  return Object.keys(metadata).length > 0 ? { metadata } : {};
}

function artifactOf(artifact: Record<string, unknown>): NodeArtifact {
  return {
    artifact_type: stringOr(artifact.artifact_type) ?? 'unknown',
    content_ref: stringOr(artifact.content_ref),
    inline_content: stringOr(artifact.inline_content),
    metadata: isJsonObject(artifact.metadata) ? artifact.metadata : {},
  };
}

function callView(call: CallEntry): NodeCall {
  const request = isJsonObject(call.request) && !isDigest(call.request) ? call.request : null;
  const answer = isJsonObject(call.answer) && !isDigest(call.answer) ? call.answer : null;
  return {
    purpose: call.purpose,
    endpoint: call.endpoint,
    model: call.model,
    started_at: call.started_at,
    latency_ms: call.latency_ms,
    tries: call.tries,
    waits_ms: [...call.waits_ms],
    replayed: call.replayed,
    estimated: call.estimated,
    error: call.error,
    usage: call.usage,
    request_hash: call.request_hash,
    messages: request && Array.isArray(request.messages) ? request.messages.map(chatMessage) : null,
    params: request && isJsonObject(request.params) ? request.params : null,
    request_digest: isDigest(call.request) ? call.request.$digest : null,
    answer: answer ? withToolCalls(textOf(answer.content), answer.tool_calls) : null,
    finish_reason: answer ? stringOr(answer.finish_reason) : null,
    answer_digest: isDigest(call.answer) ? call.answer.$digest : null,
  };
}

/** A chat message with its content as text: parts (`[{ type: 'text', text }]`) joined, anything else as JSON. */
function chatMessage(message: unknown): ChatMessage {
  const m = isJsonObject(message) ? message : {};
  const content = m.content === null || m.content === undefined ? '' : textOf(m.content);
  return { role: stringOr(m.role) ?? '?', content: withToolCalls(content, m.tool_calls) };
}

/** A message's text with the tool calls it asks for after it, one a line: `→ name(arguments)`. */
function withToolCalls(content: string, calls: unknown): string {
  if (!Array.isArray(calls) || calls.length === 0) return content;
  const lines = calls.filter(isJsonObject).map((call) => {
    // Recorded answers keep `{ id, name, arguments }`; requests keep the API's `{ id, function: { name, arguments } }`.
    const fn = isJsonObject(call.function) ? call.function : call;
    return `→ ${stringOr(fn.name) ?? '?'}(${stringOr(fn.arguments) ?? ''})`;
  });
  return [content, ...lines].filter((line) => line !== '').join('\n');
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content) && content.every((part) => isJsonObject(part) && typeof part.text === 'string')) {
    return content.map((part) => (part as { text: string }).text).join('\n');
  }
  return JSON.stringify(content) ?? '';
}

function payloadOf(message: unknown): Record<string, unknown> | null {
  return isJsonObject(message) && isJsonObject(message.payload) ? message.payload : null;
}

function stringOr(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function numberOr(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** The node of `tree` with this id, depth first; null when the tree has none. */
export function findNode(tree: RunNode, id: string): RunNode | null {
  if (tree.id === id) return tree;
  for (const child of tree.children) {
    const found = findNode(child, id);
    if (found) return found;
  }
  return null;
}
