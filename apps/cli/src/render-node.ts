import type { NodeCall, NodeInput, NodeMetadata, NodeOutcome, NodeToolCall, NodeView } from '@tierflow/runtime/admin';
import { textTable } from './text-table.js';
import { routingLines } from './render-routing.js';
import { usageText } from './render-tree.js';

/** What `tierflow inspect` may be asked to add. */
export interface RenderNodeOptions {
  /** Each model call's prompt and answer in full, not as an excerpt. */
  readonly calls?: boolean;
}

/** How much of a prompt's message or an answer shows without --calls. */
const EXCERPT_CHARS = 160;
const LABEL = 13;

/**
 * One node as a person reads it (`tierflow inspect`): who ran it and how it stands, its input,
 * its outcome, its passes and waits, and its model calls. Recorded texts are the run's data, not
 * ours: control characters are shown as `\u…` so none can move the terminal's cursor. Pure.
 */
export function renderNode(view: NodeView, options: RenderNodeOptions = {}): string {
  const sections = [
    headLines(view),
    view.input ? inputLines(view.input) : ['input', '  none known (not recorded, and its job is no longer retained)'],
    view.outcome ? outcomeLines(view.outcome) : ['outcome', `  none yet${view.status ? ` (status ${view.status})` : ''}`],
    ...(view.passes.length > 0 ? [['passes', indent(passTable(view))]] : []),
    ...(view.waits.length > 0 ? [['waits', indent(waitTable(view))]] : []),
    ...(view.calls.length > 0 ? [callLines(view.calls, options.calls === true)] : []),
    ...(view.tools.length > 0 ? [toolLines(view.tools, options.calls === true)] : []),
  ];
  return `${sections.map((lines) => lines.join('\n')).join('\n\n')}\n`;
}

function headLines(view: NodeView): string[] {
  const lines = [
    row('node', view.id),
    row(
      'tier',
      [view.tier ?? '?', view.status ? `status ${view.status}` : 'status unknown', view.task_type ? `task ${view.task_type}` : '', view.specialist ? `specialist ${view.specialist}` : '']
        .filter(Boolean)
        .join('  '),
    ),
  ];
  if (view.started_at) lines.push(row('time', `${view.started_at} → ${view.finished_at ?? 'still going'}${view.attempts > 1 ? `  ${view.attempts} attempts` : ''}`));
  if (view.reused_from) lines.push(row('reused', `answered with the recorded outcome of ${view.reused_from}, without running`));
  if (view.children.length > 0) lines.push(row('children', view.children.join(', ')));
  if (view.recording === 'none') lines.push(row('recording', 'off: nothing was recorded of this node (TIERFLOW_RECORD=none, or a run older than recording); shown is what its tree and job know'));
  else if (view.recording === 'metadata') lines.push(row('recording', 'metadata: messages, prompts and answers kept by their size and hash only'));
  if (view.skipped > 0) lines.push(row('', `(${view.skipped} entries of the run's recording could not be read)`));
  return lines;
}

function inputLines(input: NodeInput): string[] {
  const lines = [`input${input.from === 'job' ? ' (from its job: not recorded)' : ''}`];
  if (input.digest) lines.push(row('  digest', digestText(input.digest)));
  if (input.objective !== null) lines.push(block('  objective', input.objective));
  for (const [index, constraint] of input.constraints.entries()) lines.push(row(index === 0 ? '  constraints' : '', `- ${clean(constraint)}`));
  if (input.task_data && Object.keys(input.task_data).length > 0) lines.push(block('  task data', JSON.stringify(input.task_data, null, 2)));
  for (const [index, { ref, value }] of input.context.entries()) lines.push(block(index === 0 ? '  context' : '', `${clean(ref)} = ${value === null ? '(gone, or not recorded)' : valueText(value)}`));
  if (input.error_policy) lines.push(row('  on error', clean(JSON.stringify(input.error_policy))));
  const deadline = [input.timeout_ms !== null ? `timeout ${input.timeout_ms} ms` : '', input.deadline_hint ? `hint ${clean(input.deadline_hint)}` : ''].filter(Boolean).join('; ');
  if (deadline) lines.push(row('  deadline', deadline));
  if (input.specialist_hint) lines.push(row('  specialist', `hint ${clean(input.specialist_hint)}`));
  if (input.routing) for (const [index, line] of routingLines(input.routing, clean).entries()) lines.push(row(index === 0 ? '  routing' : '', line));
  if (input.priority !== null) lines.push(row('  priority', String(input.priority)));
  if (input.thread_id !== undefined) lines.push(row('  thread', clean(input.thread_id)));
  if (input.handoff !== undefined) lines.push(row('  handoff', handoffText(input.handoff)));
  for (const [index, edit] of input.edits.entries()) lines.push(row(index === 0 ? '  edits' : '', clean(edit)));
  return lines;
}

function outcomeLines(outcome: NodeOutcome): string[] {
  const lines = [`outcome${outcome.from === 'job' ? ' (from its job: not recorded)' : ''}`];
  if (outcome.digest) lines.push(row('  digest', digestText(outcome.digest)));
  if (outcome.status !== null) {
    const took = outcome.execution_time_ms === null ? '' : `  took ${seconds(outcome.execution_time_ms)}`;
    lines.push(row('  status', `${outcome.status}${outcome.confidence === null ? '' : `  confidence ${outcome.confidence.toFixed(2)}`}${took}`));
  }
  if (outcome.summary !== null) lines.push(block('  summary', outcome.summary));
  if (outcome.error_type !== null || outcome.error_detail !== null) lines.push(block('  error', [outcome.error_type, outcome.error_detail].filter((part) => part).join(': ')));
  if (outcome.usage) lines.push(row('  usage', usageText(outcome.usage)));
  if (outcome.metadata) lines.push(...metadataLines(outcome.metadata));
  for (const artifact of outcome.artifacts) {
    const where = artifact.inline_content === null ? `in Beads at ${clean(artifact.content_ref ?? '?')}` : `${Buffer.byteLength(artifact.inline_content)} bytes inline`;
    lines.push(row('  artifact', `${clean(artifact.artifact_type)} (${where})`));
    if (artifact.inline_content !== null) lines.push(indent(clean(artifact.inline_content), ' '.repeat(LABEL + 4)));
  }
  return lines;
}

/** Handoff constraints as flags: `cascade check off, tone isolation on, at most 4000 context tokens`. */
function handoffText(handoff: Readonly<Record<string, unknown>>): string {
  const onOff = (value: unknown): string => (value === true ? 'on' : value === false ? 'off' : clean(JSON.stringify(value)));
  const parts = Object.entries(handoff).map(([key, value]) => {
    if (key === 'cascade_check') return `cascade check ${onOff(value)}`;
    if (key === 'tone_isolation') return `tone isolation ${onOff(value)}`;
    if (key === 'max_context_tokens') return `at most ${clean(String(value))} context tokens`;
    return `${clean(key)} ${clean(JSON.stringify(value))}`;
  });
  return parts.join(', ');
}

function metadataLines(metadata: NodeMetadata): string[] {
  const lines: string[] = [];
  const facts = [
    metadata.format === undefined ? '' : `format ${clean(metadata.format)}`,
    metadata.sources_count === undefined ? '' : `${metadata.sources_count} sources`,
    metadata.data_freshness === undefined ? '' : `data as of ${clean(metadata.data_freshness)}`,
  ].filter(Boolean);
  if (facts.length > 0) lines.push(row('  work', facts.join('  ')));
  for (const [index, gap] of (metadata.gaps ?? []).entries()) lines.push(row(index === 0 ? '  gaps' : '', `- ${clean(gap)}`));
  for (const [index, assumption] of (metadata.assumptions ?? []).entries()) lines.push(row(index === 0 ? '  assumptions' : '', `- ${clean(assumption)}`));
  return lines;
}

function passTable(view: NodeView): string {
  return textTable(
    ['ATTEMPT', 'STARTED', 'TOOK', 'WORKER', 'ENDED', 'ERROR'],
    view.passes.map((pass) => [String(pass.attempt), iso(pass.started_at), seconds(pass.duration_ms), clean(pass.worker), pass.end, clean(pass.error ?? '')]),
  ).trimEnd();
}

const WAIT_WORDS: Readonly<Record<NodeView['waits'][number]['kind'], string>> = {
  queued: 'queued',
  children: 'for its children',
  person: 'for a person',
  model: 'for its model',
  retry: 'to retry',
};

function waitTable(view: NodeView): string {
  return textTable(
    ['WAITED', 'FROM', 'TOOK'],
    view.waits.map((wait) => [WAIT_WORDS[wait.kind], iso(wait.from), wait.to === null ? 'still waiting' : seconds(wait.to - wait.from)]),
  ).trimEnd();
}

function callLines(calls: readonly NodeCall[], full: boolean): string[] {
  const lines = [`model calls (${calls.length})${full ? '' : ': prompts and answers cut short; --calls shows them whole'}`];
  calls.forEach((call, index) => {
    const facts = [
      `${clean(call.model)} at ${clean(call.endpoint)}`,
      `${call.usage.tokens_in} in / ${call.usage.tokens_out} out${call.estimated ? ' (estimated)' : ''}`,
      call.usage.cost_usd > 0 ? `$${Number(call.usage.cost_usd.toFixed(6)).toString()}` : '',
      `${Math.round(call.latency_ms)} ms`,
      call.tries > 1 ? `${call.tries} tries` : '',
      call.waits_ms.length > 0 ? `waited ${call.waits_ms.map((ms) => `${Math.round(ms)} ms`).join(', ')}` : '',
      call.replayed ? 'replayed (no request reached the model)' : '',
    ];
    lines.push(`  ${index + 1}. ${call.purpose}  ${facts.filter(Boolean).join('  ')}`);
    if (call.error) lines.push(block('     error', call.error));
    if (call.request_digest) lines.push(row('     prompt', digestText(call.request_digest)));
    for (const message of call.messages ?? []) lines.push(block(`     [${clean(message.role)}]`, full ? message.content : excerpt(message.content)));
    if (call.params && Object.keys(call.params).length > 0) lines.push(row('     params', clean(JSON.stringify(call.params))));
    if (call.answer_digest) lines.push(row('     answer', digestText(call.answer_digest)));
    if (call.answer !== null) lines.push(block(`     answer${call.finish_reason ? ` (${clean(call.finish_reason)})` : ''}`, full ? call.answer : excerpt(call.answer)));
  });
  return lines;
}

function toolLines(tools: readonly NodeToolCall[], full: boolean): string[] {
  const lines = [`tool calls (${tools.length})${full ? '' : ': arguments and results cut short; --calls shows them whole'}`];
  tools.forEach((tool, index) => {
    const facts = [clean(tool.name), tool.end, `${Math.round(tool.latency_ms)} ms`, `${tool.result_bytes} bytes back`, clean(tool.call_id), tool.replayed ? 'replayed (the tool did not run)' : ''];
    lines.push(`  ${index + 1}. ${facts.filter(Boolean).join('  ')}`);
    if (tool.error) lines.push(block('     error', tool.error));
    if (tool.arguments_digest) lines.push(row('     args', digestText(tool.arguments_digest)));
    else if (tool.arguments !== null && tool.arguments !== undefined) {
      const args = JSON.stringify(tool.arguments, null, full ? 2 : undefined) ?? '';
      lines.push(block('     args', full ? args : excerpt(args)));
    }
    if (tool.result_digest) lines.push(row('     result', digestText(tool.result_digest)));
    else if (tool.result !== null) lines.push(block('     result', full ? tool.result : excerpt(tool.result)));
  });
  return lines;
}

/** A label, padded, then a value on the same line. */
function row(label: string, value: string): string {
  return `${label.padEnd(LABEL)}  ${value}`.trimEnd();
}

/** A label then a text over as many lines as it has, each after the first indented under the first. */
function block(label: string, text: string): string {
  const [first = '', ...rest] = clean(text).split('\n');
  const pad = ' '.repeat(Math.max(label.length, LABEL) + 2);
  return [row(label, first), ...rest.map((line) => `${pad}${line}`.trimEnd())].join('\n');
}

function indent(text: string, pad = '  '): string {
  return text
    .split('\n')
    .map((line) => `${pad}${line}`.trimEnd())
    .join('\n');
}

/** A text on one line, cut to {@link EXCERPT_CHARS} with its full length. */
export function excerpt(text: string): string {
  const flat = text.replaceAll(/\s+/g, ' ').trim();
  return flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS - 1)}… (${text.length} chars)` : flat;
}

/** Untrusted text made safe for a terminal: control characters other than newline and tab written as escapes. */
export function clean(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replaceAll(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function valueText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && '$digest' in value) return digestText((value as { $digest: { bytes: number; sha256: string } }).$digest);
  return JSON.stringify(value, null, 2);
}

function digestText(digest: { bytes: number; sha256: string }): string {
  return `kept by size and hash only: ${digest.bytes} bytes, sha256 ${digest.sha256.slice(0, 16)}…`;
}

function seconds(ms: number): string {
  return `${(Math.max(0, ms) / 1000).toFixed(2)} s`;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
