import { isZeroUsage, usageOf } from '@tierflow/core';
import { ERROR_TYPES, outcomeStatusSchema, tierBelow, tierNameSchema, type OutcomeMessage, type OutcomeStatus, type TierName, type Usage } from '@tierflow/protocol';
import { z } from 'zod';
import type { AuditRecord } from './audit-entry.js';
import { cascadeByNode, type NodeCascade } from './cascade-signals.js';
import { ROOT_TASK_TYPE } from '../messages/assignment.js';
import type { ProgressRecord } from '../progress/progress.js';
import { runStatus, type RunStatus } from '../status/run-status.js';

/** A question a run waits on, as `tierflow status` shows it: with its answer once one is given. */
export interface RunQuestion {
  readonly id: string;
  readonly question: string;
  /** The tier that asked. */
  readonly tier: TierName;
  readonly answer: string | null;
}

/** A blocker a run waits on, as `tierflow status` shows it: with its note once it is lifted. */
export interface RunBlocker {
  readonly id: string;
  readonly blocker: string;
  /** The tier that reported it. */
  readonly tier: TierName;
  /** The note it was lifted with ('' for none); null while it is still on. */
  readonly unblocked: string | null;
}

/**
 * Where a node's `status` comes from, first that applies:
 * - `outcome`: the node's own outcome (its job's return value, or the outcome it sent on the audit trail);
 * - `parent`: the outcome its parent recorded for it, e.g. the `timeout` a watchdog recorded for a silent child;
 * - `queue`: its job's state in the queue, in the words of docs/statuses.md (`queued`, `running`, …);
 * - `cancellation`: a cancellation sent to it, its job gone with no outcome on record (status `cancelled`);
 * - `none`: only the delegation is on record, its job gone with no outcome (status `missing`).
 */
export type RunNodeSource = 'outcome' | 'parent' | 'queue' | 'cancellation' | 'none';

/** One node of `tierflow status --json`: every delegation a parent sent, whether or not its job ran or is still retained. */
export interface RunNode {
  readonly id: string;
  readonly tier: TierName;
  readonly task_type: string;
  readonly specialist: string | null;
  /** A word of the status vocabulary (docs/statuses.md): where its work is, then its outcome's status; see `source`. */
  readonly status: RunStatus;
  readonly source: RunNodeSource;
  /** For debugging: BullMQ's state of its job while it is retained (`prioritized`, `waiting-children`, …); null once it is gone (never added, or past retention). */
  readonly queue_state: string | null;
  readonly confidence: number | null;
  /** The model calls of this node and everything below it, as its outcome reports them; null without an outcome or without calls. */
  readonly usage: Usage | null;
  /** The latest progress the node's job reported, while the run keeps it; null when it reported none. */
  readonly progress: ProgressRecord | null;
  readonly attempts: number;
  readonly started_at: string | null;
  readonly finished_at: string | null;
  readonly children: RunNode[];
  /** In a fork (`tierflow rerun --from`): the node of the original run whose outcome it answered with, without running. */
  readonly reused_from?: string;
  /** At the root of a run waiting for a person (status `input_required`): its questions, with the answers given so far. */
  readonly questions?: RunQuestion[];
  /** Until when that run waits for them, or to be unblocked (ISO 8601). */
  readonly waiting_until?: string;
  /** At the root of a run waiting on blocked work (status `blocked`, no outcome yet): what blocks it, with the blockers lifted so far. */
  readonly blockers?: RunBlocker[];
  /** Since when that run is blocked (ISO 8601). */
  readonly blocked_since?: string;
  /** The confidence cascade's word on this node's outcome, where a tier above flagged, held or rejected it. */
  readonly cascade?: NodeCascade;
  /** The node's agent rejected the handoff before starting (docs/protocol.md#explicit-rejection): why, when its outcome is still on hand. */
  readonly rejection?: NodeRejection;
}

/** A handoff the receiving agent turned down: its reason, null once only the audit trail remembers it. */
export interface NodeRejection {
  readonly reason: string | null;
}

/** What the queue holds of one job, read at the edge and parsed there. */
export interface JobFacts {
  /** BullMQ's state (`waiting`, `active`, `completed`, …), or `unreadable` for a job whose record cannot be parsed. */
  readonly state: string;
  /** Its return value when it completed and is a valid outcome. */
  readonly outcome: OutcomeMessage | null;
  readonly task_type: string | null;
  readonly specialist_hint: string | null;
  readonly attempts_made: number;
  /** Its current attempt waits in the delayed set for a time its pass chose (a parked leaf), not for a retry. */
  readonly deferred?: boolean;
  readonly processed_on: number | null;
  readonly finished_on: number | null;
  /** Child job ids from its dependencies (a child its parent let go of is no longer among them). */
  readonly children: readonly string[];
}

interface OutcomeFact {
  readonly status: OutcomeStatus;
  readonly confidence: number | null;
  readonly time: string | null;
  /** A fork's node that answered with this original node's outcome (the entry's detail `reused <node>`). */
  readonly reused: string | null;
  /** Its agent rejected the handoff (the entry's detail `handoff_rejected`). */
  readonly rejected: boolean;
}

/** What the audit trail says of one node. */
interface AuditNode {
  tier: TierName | null;
  task_type: string | null;
  first_delivery: string | null;
  attempts: number;
  sent: OutcomeFact | null;
  received: OutcomeFact | null;
  cancelled: boolean;
}

/** A run's audit trail, indexed by node. */
export interface AuditDigest {
  readonly nodes: ReadonlyMap<string, AuditNode>;
  /** Child ids by parent id, from the delegations sent. */
  readonly children: ReadonlyMap<string, readonly string[]>;
  /** Whether the trail holds anything at all. */
  readonly exists: boolean;
}

const OUTCOME_SUFFIX = '.out';
const CHILD_ID = /^(.+)\.(\d+)-(\d+)$/;

/** An ISO time, or null for one that does not parse. */
const time = z.string().transform((text) => {
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
});

/** The entries the tree reads; any other, or one with a field out of shape, is ignored. */
const treeEntrySchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('delegation'),
    direction: z.enum(['sent', 'received']),
    id: z.string().min(1),
    to: z.string(),
    detail: z.string(),
    attempt: z.number().int().positive().nullable(),
    time,
  }),
  z.object({
    kind: z.literal('outcome'),
    direction: z.enum(['sent', 'received']),
    id: z.string().endsWith(OUTCOME_SUFFIX),
    status: outcomeStatusSchema,
    confidence: z.number().min(0).max(1).nullable(),
    detail: z.string().catch(''),
    time,
  }),
  z.object({ kind: z.literal('cancellation'), direction: z.enum(['sent', 'received']), correlation_id: z.string().min(1) }),
]);

/** Indexes a run's audit trail by node; malformed entries are skipped. Later entries win (a retry, a re-read round). */
export function digestAudit(records: readonly AuditRecord[]): AuditDigest {
  const nodes = new Map<string, AuditNode>();
  const children = new Map<string, string[]>();
  const nodeOf = (id: string): AuditNode => {
    let node = nodes.get(id);
    if (!node) nodes.set(id, (node = { tier: null, task_type: null, first_delivery: null, attempts: 0, sent: null, received: null, cancelled: false }));
    return node;
  };
  for (const record of records) {
    const parsed = treeEntrySchema.safeParse(record);
    if (!parsed.success) continue;
    const entry = parsed.data;
    if (entry.kind === 'cancellation') {
      // A sent cancellation names the node it marked; a received one names the cancel's target.
      if (entry.direction === 'sent') nodeOf(entry.correlation_id).cancelled = true;
    } else if (entry.kind === 'outcome') {
      const fact = {
        status: entry.status,
        confidence: entry.confidence,
        time: entry.time,
        reused: entry.detail.startsWith(REUSED) ? entry.detail.slice(REUSED.length) : null,
        rejected: entry.detail === ERROR_TYPES.handoffRejected,
      };
      // An outcome's id is its delegation's id with `.out`, also for one a parent made up.
      const node = nodeOf(entry.id.slice(0, -OUTCOME_SUFFIX.length));
      if (entry.direction === 'sent') node.sent = fact;
      else node.received = fact;
    } else if (entry.direction === 'sent') {
      const parent = CHILD_ID.exec(entry.id)?.[1];
      const tier = tierNameSchema.safeParse(entry.to);
      if (parent === undefined || !tier.success) continue;
      const node = nodeOf(entry.id);
      if (node.tier === null) children.set(parent, [...(children.get(parent) ?? []), entry.id]);
      node.tier = tier.data;
      node.task_type = entry.detail || null;
    } else {
      const node = nodeOf(entry.id);
      node.first_delivery ??= entry.time;
      node.attempts = Math.max(node.attempts + (entry.attempt === null ? 1 : 0), entry.attempt ?? 0);
    }
  }
  return { nodes, children, exists: records.length > 0 };
}

/** The delegations a parent sent to `childTier`, by the audit trail. */
export function auditChildren(audit: AuditDigest, parentId: string, childTier: TierName): string[] {
  return (audit.children.get(parentId) ?? []).filter((id) => audit.nodes.get(id)?.tier === childTier);
}

/**
 * A run's tree from its audit trail and the jobs still in the queues: every delegation either
 * knows of, each with the best status on hand (see {@link RunNodeSource}). Null when neither
 * knows the root.
 */
export function mergeRunTree(rootId: string, audit: AuditDigest, jobs: ReadonlyMap<string, JobFacts>, progress: ReadonlyMap<string, ProgressRecord> = new Map()): RunNode | null {
  if (!jobs.has(rootId) && !audit.exists) return null;
  const cascades = cascadeByNode([...jobs.values()].flatMap((job) => (job.outcome ? [job.outcome] : [])));
  return mergeNode(rootId, 'PROGRESS_MONITOR', { audit, jobs, progress, cascades });
}

/** What every node of a tree is merged from. */
interface TreeSources {
  readonly audit: AuditDigest;
  readonly jobs: ReadonlyMap<string, JobFacts>;
  readonly progress: ReadonlyMap<string, ProgressRecord>;
  readonly cascades: ReadonlyMap<string, NodeCascade>;
}

function mergeNode(id: string, tier: TierName, sources: TreeSources): RunNode {
  const { audit, jobs, progress, cascades } = sources;
  const job = jobs.get(id) ?? null;
  const record = audit.nodes.get(id) ?? null;
  const below = tierBelow(tier);
  const childIds = below ? [...new Set([...auditChildren(audit, id, below), ...(job?.children ?? [])])].sort(byDelegationOrder) : [];
  const { status, source, confidence } = statusOf(job, record);
  const specialist = job?.specialist_hint ?? stringOr(job?.outcome?.payload.resources_used.specialist);
  return {
    id,
    tier,
    task_type: job?.task_type ?? record?.task_type ?? (id.includes('.') ? 'unknown' : ROOT_TASK_TYPE),
    specialist: tier === 'SPECIALIZED_FLEET' ? specialist : null,
    status,
    source,
    queue_state: job?.state ?? null,
    confidence,
    usage: usageIn(job?.outcome ?? null),
    progress: progress.get(id) ?? null,
    // BullMQ counts an attempt when it ends (failed, retried or completed); a running one is not counted yet.
    attempts: job ? job.attempts_made + (job.state === 'active' ? 1 : 0) : (record?.attempts ?? 0),
    // The trail's first delivery: BullMQ moves processedOn to each pass of a parent, so a finished parent would seem to have taken only its last.
    started_at: record?.first_delivery ?? (job?.processed_on ? new Date(job.processed_on).toISOString() : null),
    finished_at: job?.finished_on ? new Date(job.finished_on).toISOString() : job ? null : (record?.sent?.time ?? null),
    children: childIds.map((childId) => mergeNode(childId, below!, sources)),
    ...reusedFrom(job, record),
    ...(cascades.has(id) ? { cascade: cascades.get(id)! } : {}),
    ...rejectionOf(job, record),
  };
}

function rejectionOf(job: JobFacts | null, record: AuditNode | null): { rejection?: NodeRejection } {
  const payload = job?.outcome?.payload;
  if (payload) return payload.error_type === ERROR_TYPES.handoffRejected ? { rejection: { reason: payload.error_detail ?? null } } : {};
  return record?.sent?.rejected ? { rejection: { reason: null } } : {};
}

/** The audit entry's detail of an outcome a fork's node reused. */
const REUSED = 'reused ';

function reusedFrom(job: JobFacts | null, record: AuditNode | null): { reused_from?: string } {
  const from = stringOr(job?.outcome?.payload.resources_used.reused_from) ?? record?.sent?.reused ?? null;
  return from === null ? {} : { reused_from: from };
}

function usageIn(outcome: OutcomeMessage | null): Usage | null {
  const usage = outcome ? usageOf(outcome.payload.resources_used) : null;
  return usage && !isZeroUsage(usage) ? usage : null;
}

function statusOf(job: JobFacts | null, record: AuditNode | null): { status: RunStatus; source: RunNodeSource; confidence: number | null } {
  const answered = (status: OutcomeStatus, source: RunNodeSource, confidence: number | null) => ({ status: runStatus({ queueState: job?.state ?? null, outcome: status }), source, confidence });
  if (job?.outcome) return answered(job.outcome.payload.status, 'outcome', job.outcome.payload.confidence);
  if (record?.sent) return answered(record.sent.status, 'outcome', record.sent.confidence);
  if (record?.received) return answered(record.received.status, 'parent', record.received.confidence);
  if (job) return { status: runStatus({ queueState: job.state, outcome: null, deferred: job.deferred ?? false }), source: 'queue', confidence: null };
  if (record?.cancelled) return answered('cancelled', 'cancellation', null);
  return { status: runStatus({ queueState: null, outcome: null }), source: 'none', confidence: null };
}

/** Delegation order: round, then index; ids of another shape last, by name. */
function byDelegationOrder(a: string, b: string): number {
  const [ra, ia] = orderOf(a);
  const [rb, ib] = orderOf(b);
  return ra - rb || ia - ib || a.localeCompare(b);
}

function orderOf(id: string): [number, number] {
  const match = CHILD_ID.exec(id);
  return match ? [Number(match[2]), Number(match[3])] : [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];
}

function stringOr(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
