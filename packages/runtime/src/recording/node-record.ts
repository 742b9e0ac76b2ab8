import { recordEntrySchema, RECORD_FIELD, type CallEntry, type DelegationEntry, type OutcomeEntry, type PassEntry, type RecordEntry, type ToolEntry } from './record-entry.js';

/** Everything recorded of one node (docs/operations.md#recording). */
export interface NodeRecord {
  readonly node: string;
  /** The tier that ran it, as recorded; null when nothing of it was. */
  readonly tier: string | null;
  /** The delegation as last taken up; null when none was recorded. */
  readonly delegation: DelegationEntry | null;
  readonly outcome: OutcomeEntry | null;
  /** Its passes, in order. */
  readonly passes: readonly PassEntry[];
  readonly calls: readonly CallEntry[];
  /** Its tool calls (an LLM specialist's tool loop), in order. */
  readonly tools: readonly ToolEntry[];
  /** In a fork: the node of the original run whose outcome it answered with, without running. */
  readonly reused_from: string | null;
  /** What it waited for between its passes, on one time axis. */
  readonly waits: readonly Wait[];
}

/** A stretch of a node's life spent not running: queued, waiting for its children, for a person, or for a retry's back-off. */
export interface Wait {
  readonly kind: 'queued' | 'children' | 'person' | 'model' | 'retry';
  readonly from: number;
  /** Null: still waiting. */
  readonly to: number | null;
}

/** A run's recording, read back: its entries by node, and how many entries could not be read. */
export interface RunRecording {
  readonly nodes: ReadonlyMap<string, NodeRecord>;
  readonly skipped: number;
}

/** Stream entries (as XRANGE gives them) parsed: each holds one entry or several (a pass's end); what does not parse is counted, not trusted. Pure. */
export function parseRecordEntries(raw: readonly (readonly [string, readonly string[]])[]): { entries: RecordEntry[]; skipped: number } {
  const entries: RecordEntry[] = [];
  let skipped = 0;
  for (const [, fields] of raw) {
    const at = fields.indexOf(RECORD_FIELD);
    const text = at >= 0 && at % 2 === 0 ? fields[at + 1] : undefined;
    let value: unknown;
    try {
      value = text === undefined ? undefined : JSON.parse(text);
    } catch {
      value = undefined;
    }
    for (const item of Array.isArray(value) ? value : [value]) {
      const parsed = recordEntrySchema.safeParse(item);
      if (parsed.success) entries.push(parsed.data);
      else skipped++;
    }
  }
  return { entries, skipped };
}

/** Entries gathered by node, in stream order, with each node's waits. Pure. */
export function nodeRecords(entries: readonly RecordEntry[]): Map<string, NodeRecord> {
  const drafts = new Map<
    string,
    { tier: string | null; delegation: DelegationEntry | null; outcome: OutcomeEntry | null; passes: PassEntry[]; calls: CallEntry[]; tools: ToolEntry[]; reused_from: string | null }
  >();
  const contexts = new Map<string, unknown>();
  for (const entry of entries) if (entry.kind === 'context') contexts.set(entry.sha256, entry.value);
  for (const entry of entries) {
    // A context value is the run's, not a node's: delegations name it by its hash.
    if (entry.kind === 'context') continue;
    let draft = drafts.get(entry.node);
    if (!draft) drafts.set(entry.node, (draft = { tier: null, delegation: null, outcome: null, passes: [], calls: [], tools: [], reused_from: null }));
    draft.tier = entry.tier;
    switch (entry.kind) {
      case 'delegation':
        draft.delegation = withContextValues(entry, contexts);
        break;
      case 'outcome':
        draft.outcome = entry;
        break;
      case 'pass':
        draft.passes.push(entry);
        break;
      case 'call':
        draft.calls.push(entry);
        break;
      case 'tool':
        draft.tools.push(entry);
        break;
      case 'reused':
        draft.reused_from = entry.from;
        break;
      default:
        entry satisfies never;
    }
  }
  return new Map(
    [...drafts].map(([node, draft]) => {
      const passes = [...draft.passes].sort((a, b) => a.started_at - b.started_at);
      return [node, { node, ...draft, passes, waits: waitsOf(passes, draft.delegation, draft.outcome !== null) }];
    }),
  );
}

/** A delegation with the values its `{ $context: <sha256> }` marks name (null where the run's recording has none). */
function withContextValues(entry: DelegationEntry, contexts: ReadonlyMap<string, unknown>): DelegationEntry {
  const marks = Object.entries(entry.context).filter(([, value]) => contextMark(value) !== null);
  if (marks.length === 0) return entry;
  const context = { ...entry.context };
  for (const [ref, value] of marks) context[ref] = contexts.get(contextMark(value)!) ?? null;
  return { ...entry, context };
}

function contextMark(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const keys = Object.keys(value);
  const mark = (value as { $context?: unknown }).$context;
  return keys.length === 1 && typeof mark === 'string' ? mark : null;
}

const WAIT_AFTER: Record<PassEntry['end'], Wait['kind'] | null> = { answered: null, parked: 'children', asked: 'person', deferred: 'model', retrying: 'retry', errored: 'retry' };

/**
 * What a node waited for, from its passes (pure): queued from its delegation's timestamp to its
 * first pass; after each pass, what that pass ended waiting for, until the next one began. A wait
 * with no end (`to` null) goes on still.
 */
export function waitsOf(passes: readonly PassEntry[], delegation: DelegationEntry | null, answered: boolean): Wait[] {
  const waits: Wait[] = [];
  const first = passes[0];
  const queuedAt = first?.queued_at ?? messageTimestamp(delegation);
  if (queuedAt !== null) {
    const to = first ? first.started_at : answered ? queuedAt : null;
    if (to === null || to > queuedAt) waits.push({ kind: 'queued', from: queuedAt, to });
  }
  passes.forEach((pass, index) => {
    const kind = WAIT_AFTER[pass.end];
    if (kind === null) return;
    const next = passes[index + 1];
    waits.push({ kind, from: pass.ended_at, to: next ? next.started_at : answered ? pass.ended_at : null });
  });
  return waits;
}

function messageTimestamp(delegation: DelegationEntry | null): number | null {
  const message = delegation?.message;
  if (typeof message !== 'object' || message === null) return null;
  const timestamp = (message as { timestamp?: unknown }).timestamp;
  const at = typeof timestamp === 'string' ? Date.parse(timestamp) : Number.NaN;
  return Number.isFinite(at) ? at : null;
}
