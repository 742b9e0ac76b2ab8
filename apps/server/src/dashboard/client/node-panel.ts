import type { Artifact, NodeCall, NodeToolCall, NodeView } from './api-types.js';
import { artifactShape } from './artifact-kind.js';
import { h, statusBadge } from './dom.js';
import { clock, cost, duration, shortId, tierSlug, tokenCount } from './format.js';
import { routingView } from './routing-view.js';

/**
 * One node of a run, opened from its row of the tree: who ran it, its input, its outcome with
 * its artifacts, its passes and waits, its model calls with their prompts and answers and its
 * tool calls with their arguments and results (folded).
 * Everything recorded is the run's data, put on the page as text (dom.ts), never as markup.
 * `actions` is the header's place for what can be done to the node (a rerun, say).
 */
export function nodePanel(view: NodeView, onClose: () => void): { readonly panel: HTMLElement; readonly actions: HTMLElement } {
  const close = h('button', { type: 'button', class: 'close', 'aria-label': 'Close the node' }, 'Close');
  close.addEventListener('click', onClose);
  const actions = h('div', { class: 'actions', id: 'node-actions' });
  const panel = h(
    'section',
    { class: 'panel node-panel', id: 'node-panel', 'data-node-id': view.id, 'aria-label': `Node ${view.id}` },
    h('div', { class: 'heading' }, h('h2', {}, 'Node ', h('code', {}, shortId(view.id, view.root_id))), view.status ? statusBadge(view.status) : null, close),
    actions,
    facts(view),
    recordingNote(view),
    section('Input', view.input ? inputList(view.input) : h('p', { class: 'muted' }, 'Not known: not recorded, and its job is no longer retained.')),
    section('Outcome', view.outcome ? outcomeList(view.outcome) : h('p', { class: 'muted' }, 'None yet.')),
    view.passes.length > 0 ? section('Passes', passTable(view)) : null,
    view.waits.length > 0 ? section('Waits', waitTable(view)) : null,
    view.calls.length > 0 ? section(`Model calls (${view.calls.length})`, h('div', { class: 'calls' }, ...view.calls.map(callView))) : null,
    view.tools.length > 0 ? section(`Tool calls (${view.tools.length})`, h('div', { class: 'calls', id: 'tool-calls' }, ...view.tools.map(toolView))) : null,
  );
  return { panel, actions };
}

function facts(view: NodeView): HTMLElement {
  return list([
    ['Node', h('code', {}, view.id)],
    ['Tier', view.tier ? tierSlug(view.tier) : null],
    ['Task', view.task_type],
    ['Specialist', view.specialist],
    ['Attempts', view.attempts > 0 ? String(view.attempts) : null],
    ['Started', view.started_at ? clock(view.started_at) : null],
    ['Finished', view.finished_at ? clock(view.finished_at) : null],
    ['Reused', view.reused_from ? `answered with the recorded outcome of ${view.reused_from}, without running` : null],
  ]);
}

function recordingNote(view: NodeView): HTMLElement | null {
  if (view.recording === 'none')
    return h('p', { class: 'notice', id: 'recording-off' }, 'Recording was off for this node (TIERFLOW_RECORD=none, or a run older than recording): shown is what its tree and job know.');
  if (view.recording === 'metadata') return h('p', { class: 'notice' }, 'Recorded as metadata: messages, prompts and answers were kept by their size and hash only.');
  return null;
}

function inputList(input: NonNullable<NodeView['input']>): HTMLElement {
  return list([
    ['From', input.from === 'job' ? 'its job (not recorded)' : null],
    ['Digest', input.digest ? digestText(input.digest) : null],
    ['Objective', input.objective === null ? null : h('div', { class: 'text' }, input.objective)],
    ['Constraints', input.constraints.length > 0 ? h('ul', {}, ...input.constraints.map((item) => h('li', {}, item))) : null],
    ['Task data', input.task_data && Object.keys(input.task_data).length > 0 ? folded('JSON', input.task_data) : null],
    ['Context', input.context.length > 0 ? h('div', {}, ...input.context.map(({ ref, value }) => folded(ref, value))) : null],
    ['Error policy', input.error_policy ? folded('JSON', input.error_policy) : null],
    ['Deadline', [input.timeout_ms === null ? '' : `timeout ${duration(input.timeout_ms)}`, input.deadline_hint ? `hint: ${input.deadline_hint}` : ''].filter(Boolean).join('; ') || null],
    ['Specialist hint', input.specialist_hint],
    ['Routing', input.routing ? routingView(input.routing) : null],
    ['Priority', input.priority === null ? null : String(input.priority)],
    ['Thread', input.thread_id ?? null],
    ['Handoff', input.handoff ? folded('JSON', input.handoff) : null],
    ['Edits', input.edits.length > 0 ? h('ul', {}, ...input.edits.map((edit) => h('li', {}, h('code', {}, edit)))) : null],
  ]);
}

function outcomeList(outcome: NonNullable<NodeView['outcome']>): HTMLElement {
  return h(
    'div',
    { class: 'outcome' },
    list([
      ['From', outcome.from === 'job' ? 'its job (not recorded)' : null],
      ['Digest', outcome.digest ? digestText(outcome.digest) : null],
      ['Status', outcome.status ? h('span', {}, statusBadge(outcome.status), outcome.confidence === null ? '' : ` confidence ${outcome.confidence.toFixed(2)}`) : null],
      ['Summary', outcome.summary === null ? null : h('div', { class: 'text' }, outcome.summary)],
      ['Error', outcome.error_type || outcome.error_detail ? [outcome.error_type, outcome.error_detail].filter(Boolean).join(': ') : null],
      ['Took', outcome.execution_time_ms === null ? null : duration(outcome.execution_time_ms)],
      ['Usage', outcome.usage ? usageText(outcome.usage) : null],
      ...metadataRows(outcome.metadata),
    ]),
    ...outcome.artifacts.map(artifactView),
  );
}

/** What the outcome says of its work (docs/protocol.md#handoff-metadata); no rows when it says nothing. */
function metadataRows(metadata: NonNullable<NodeView['outcome']>['metadata']): (readonly [string, Value])[] {
  if (!metadata) return [];
  const items = (values: readonly string[] | undefined) => (values && values.length > 0 ? h('ul', {}, ...values.map((value) => h('li', {}, value))) : null);
  return [
    ['Format', metadata.format ?? null],
    ['Sources', metadata.sources_count === undefined ? null : String(metadata.sources_count)],
    ['Data as of', metadata.data_freshness ?? null],
    ['Gaps', items(metadata.gaps)],
    ['Assumptions', items(metadata.assumptions)],
  ];
}

/** An artifact by its type: code as code, JSON folded, test cases as a table, else text. */
export function artifactView(artifact: Artifact): HTMLElement {
  const shape = artifactShape(artifact);
  const title = h('strong', {}, artifact.artifact_type);
  switch (shape.kind) {
    case 'ref':
      return h('div', { class: 'artifact', 'data-shape': 'ref' }, title, h('p', {}, 'in Beads at ', h('code', {}, shape.ref)));
    case 'code':
      return h(
        'div',
        { class: 'artifact', 'data-shape': 'code' },
        title,
        shape.language ? h('span', { class: 'muted' }, ` ${shape.language}`) : null,
        h('pre', {}, h('code', shape.language ? { 'data-language': shape.language } : {}, shape.text)),
      );
    case 'json':
      return h('div', { class: 'artifact', 'data-shape': 'json' }, title, h('details', {}, h('summary', {}, shape.summary), h('pre', {}, shape.text)));
    case 'tests':
      return h(
        'div',
        { class: 'artifact', 'data-shape': 'tests' },
        title,
        h(
          'table',
          { class: 'tests' },
          h('thead', {}, h('tr', {}, ...shape.columns.map((column) => h('th', { scope: 'col' }, column)))),
          h('tbody', {}, ...shape.rows.map((row) => h('tr', {}, ...row.map((cell) => h('td', {}, cell))))),
        ),
      );
    case 'text':
      return h('div', { class: 'artifact', 'data-shape': 'text' }, title, h('pre', {}, shape.text));
  }
}

const PASS_ENDS: Readonly<Record<NodeView['passes'][number]['end'], string>> = {
  answered: 'answered',
  parked: 'waited for its children',
  asked: 'asked a person',
  deferred: 'waited for its model',
  retrying: 'to be retried',
  errored: 'stopped by an error',
};

function passTable(view: NodeView): HTMLElement {
  return table(
    ['Attempt', 'Started', 'Took', 'Worker', 'Ended', 'Error'],
    view.passes.map((pass) => [String(pass.attempt), clock(new Date(pass.started_at).toISOString()), span(pass.duration_ms), pass.worker, PASS_ENDS[pass.end], pass.error ?? '']),
  );
}

const WAITS: Readonly<Record<NodeView['waits'][number]['kind'], string>> = {
  queued: 'queued',
  children: 'for its children',
  person: 'for a person',
  model: 'for its model',
  retry: 'to retry',
};

function waitTable(view: NodeView): HTMLElement {
  return table(
    ['Waited', 'From', 'Took'],
    view.waits.map((wait) => [WAITS[wait.kind], clock(new Date(wait.from).toISOString()), wait.to === null ? 'still waiting' : span(wait.to - wait.from)]),
  );
}

function callView(call: NodeCall, index: number): HTMLElement {
  const facts = [
    call.purpose,
    call.model,
    `${tokenCount(call.usage)} tokens`,
    cost(call.usage),
    `${Math.round(call.latency_ms)} ms`,
    call.tries > 1 ? `${call.tries} tries` : '',
    call.waits_ms.length > 0 ? `waited ${call.waits_ms.map((ms) => duration(ms)).join(', ')}` : '',
    call.replayed ? 'replayed' : '',
    call.error ? 'failed' : '',
  ].filter(Boolean);
  return h(
    'details',
    { class: 'call', 'data-call': index },
    h('summary', {}, `${index + 1}. ${facts.join(' · ')}`),
    list([
      ['Endpoint', h('code', {}, call.endpoint)],
      ['Tokens', `${call.usage.tokens_in} in, ${call.usage.tokens_out} out${call.estimated ? ' (estimated)' : ''}`],
      ['Error', call.error],
      ['Params', call.params && Object.keys(call.params).length > 0 ? folded('JSON', call.params) : null],
      ['Prompt', call.request_digest ? digestText(call.request_digest) : null],
      ['Answer', call.answer_digest ? digestText(call.answer_digest) : null],
    ]),
    ...(call.messages ?? []).map((message) => h('div', { class: 'message' }, h('div', { class: 'role' }, message.role), h('pre', { class: 'prompt' }, message.content))),
    call.answer === null
      ? null
      : h('div', { class: 'message' }, h('div', { class: 'role' }, `answer${call.finish_reason ? ` (${call.finish_reason})` : ''}`), h('pre', { class: 'answer' }, call.answer)),
  );
}

function toolView(tool: NodeToolCall, index: number): HTMLElement {
  const facts = [tool.name, tool.end, `${Math.round(tool.latency_ms)} ms`, `${tool.result_bytes} bytes back`, tool.replayed ? 'replayed' : ''].filter(Boolean);
  return h(
    'details',
    { class: 'call', 'data-tool': index },
    h('summary', {}, `${index + 1}. ${facts.join(' · ')}`),
    list([
      ['Call', h('code', {}, tool.call_id)],
      ['Caller', tool.caller],
      ['Error', tool.error],
      ['Arguments', tool.arguments_digest ? digestText(tool.arguments_digest) : tool.arguments === null || tool.arguments === undefined ? null : folded('JSON', tool.arguments)],
      ['Result', tool.result_digest ? digestText(tool.result_digest) : null],
    ]),
    tool.result === null ? null : h('div', { class: 'message' }, h('div', { class: 'role' }, 'result'), h('pre', { class: 'answer' }, tool.result)),
  );
}

type Value = string | Node | null;

/** Label and value pairs as a definition list; pairs without a value are left out. */
function list(pairs: readonly (readonly [string, Value])[]): HTMLElement {
  return h('dl', { class: 'facts' }, ...pairs.flatMap(([label, value]) => (value === null || value === '' ? [] : [h('dt', {}, label), h('dd', {}, value)])));
}

function section(title: string, body: Node): HTMLElement {
  return h('div', { class: 'node-section' }, h('h3', {}, title), body);
}

function table(titles: readonly string[], rows: readonly (readonly string[])[]): HTMLElement {
  return h(
    'table',
    {},
    h('thead', {}, h('tr', {}, ...titles.map((title) => h('th', { scope: 'col' }, title)))),
    h('tbody', {}, ...rows.map((row) => h('tr', {}, ...row.map((cell) => h('td', {}, cell))))),
  );
}

/** A value folded: a string as it is, anything else as JSON. */
function folded(label: string, value: unknown): HTMLElement {
  const text = typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? 'null');
  return h('details', { class: 'folded' }, h('summary', {}, label), h('pre', {}, text));
}

/** A short stretch in ms, a longer one as the rest of the page words it. */
function span(ms: number): string {
  return ms < 1_000 ? `${Math.max(0, Math.round(ms))} ms` : duration(ms);
}

function digestText(digest: { bytes: number; sha256: string }): string {
  return `kept by size and hash only: ${digest.bytes} bytes, sha256 ${digest.sha256.slice(0, 16)}…`;
}

function usageText(usage: NonNullable<NonNullable<NodeView['outcome']>['usage']>): string {
  return [`${usage.llm_calls} call${usage.llm_calls === 1 ? '' : 's'}`, `${tokenCount(usage)} tokens`, cost(usage)].filter(Boolean).join(', ');
}
