import { isJsonObject, tierAbove, type CancellationMessage, type DelegationMessage, type OutcomeMessage, type Blocker, type Question, type TierName } from '@tierflow/protocol';
import type { RedisClient } from '@tierflow/beads';
import { appendAudit, appendAuditNow, AUDIT_CLIENT, type AuditEntry, type AuditWrites } from './audit-entry.js';
import { auditKey } from '../redis/keys.js';
import { AuditGaps } from './audit-gaps.js';
import { systemClock, type Clock } from '../deadlines/clock.js';
import type { Assignment, PolicyDecision, SettledChild, TierLogger } from '../policy/handler.js';
import type { ToolCall } from '../policy/tool-calls.js';
import type { SecurityFinding } from './security-findings.js';
import { createHash } from 'node:crypto';

/** How much of a tool call's arguments its audit entry keeps, as JSON. */
const TOOL_ARGUMENTS_CHARS = 2_000;

/**
 * What one tier worker appends to the audit trail. Sending rides the MULTI the worker runs
 * anyway (the step write of a delegation, the record of an outcome), so it costs no round trip;
 * so does a parent's receipt of its children's outcomes. A delegation's receipt is written the
 * moment it is taken up (with the pass's first read when it is surely a delivery, else right
 * after it), without waiting for the reply: work that never finishes (a long specialist run, a
 * crash) is still on record. Commands
 * on one connection run in order, so an entry always lands before what the worker does next.
 * The TTL is set by the Monitor alone: with the root's receipt, which opens the stream, and with
 * what it sends, the final outcome last, so a run's trail lives the TTL past its end. (A message
 * is always on record as sent before anyone can receive it.) Lower tiers append without it,
 * which saves a command per append.
 */
export class AuditTrail {
  /** Entries that could not be appended, recorded as a gap in their trails once Redis takes writes again. */
  readonly gaps: AuditGaps;

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly tier: TierName,
    private readonly ttlMs: number,
    log: TierLogger,
    /** Entries are timed on the deployment's clock, so a trail's times agree across hosts. */
    private readonly clock: Clock = systemClock,
  ) {
    this.gaps = new AuditGaps(redis, prefix, tier, ttlMs, log, () => this.time());
  }

  /** Delegations sent, on the MULTI that saves the parent's step. */
  delegationsSent(pipeline: AuditWrites, rootId: string, messages: readonly DelegationMessage[]): void {
    const entries = messages.map((message) => this.entry(message.timestamp, message.source_tier, message.target_tier, 'delegation', 'sent', message, message.payload.task_type));
    appendAudit(pipeline, auditKey(this.prefix, rootId), entries, this.refreshTtl());
  }

  /**
   * The decisions a policy made for a round, on the MULTI that sends it, after its delegations:
   * each about one of `messages` (by its place), from this tier to the one below, or about the
   * round (`child` null), this tier's own. A decision naming no message of the round is dropped.
   */
  decisionsMade(pipeline: AuditWrites, assignment: Assignment, messages: readonly DelegationMessage[], decisions: readonly PolicyDecision[]): void {
    const at = this.time();
    const entries = decisions.flatMap((decision): AuditEntry[] => {
      const message = decision.child === null ? null : messages[decision.child];
      if (message === undefined) return [];
      const about = message ?? { id: assignment.id, correlation_id: assignment.message?.correlation_id ?? null };
      const to = message?.target_tier ?? this.tier;
      return [{ ...this.entry(at, this.tier, to, 'decision', 'sent', about, decision.detail), data: decision.data }];
    });
    appendAudit(pipeline, auditKey(this.prefix, assignment.rootId), entries, null);
  }

  /** A delegation taken up (the root objective, for the Monitor); a retry is a new delivery, with its attempt. */
  received(assignment: Assignment, attempt: number): void {
    const { message } = assignment;
    const from = message?.source_tier ?? AUDIT_CLIENT;
    const entry = { ...this.entry(this.time(), from, this.tier, 'delegation', 'received', message ?? { id: assignment.id, correlation_id: null }, assignment.payload.task_type), attempt };
    this.appendNow(assignment.rootId, entry, message === null);
  }

  /**
   * The outcomes of a settled round, as this parent reads them (those it made up for silent
   * children included), on the MULTI that sends what the parent does next: the parent decides in
   * a moment, and a crash before then reads the round, and records it, again.
   */
  outcomesReceived(pipeline: AuditWrites, assignment: Assignment, children: readonly SettledChild[]): void {
    const at = this.time();
    const entries = children.map(({ outcome }) => this.outcomeEntry(at, outcome.source_tier, this.tier, 'received', outcome));
    appendAudit(pipeline, auditKey(this.prefix, assignment.rootId), entries, null);
  }

  /**
   * The outcome sent, on the MULTI that records it. The Monitor's goes to the client. An answer
   * to a cancellation records the cancellation received first: `cancellation`, the mark that
   * stopped the job, as its reader checked it.
   */
  outcomeSent(pipeline: AuditWrites, assignment: Assignment, outcome: OutcomeMessage, cancellation: CancellationMessage | null = null): void {
    const entries: AuditEntry[] = [];
    if (cancellation) entries.push(this.entry(this.time(), cancellation.source_tier, this.tier, 'cancellation', 'received', cancellation, cancellation.payload.reason));
    const to = this.tier === 'PROGRESS_MONITOR' ? AUDIT_CLIENT : outcome.target_tier;
    entries.push(this.outcomeEntry(outcome.timestamp, this.tier, to, 'sent', outcome));
    appendAudit(pipeline, auditKey(this.prefix, assignment.rootId), entries, this.refreshTtl());
  }

  /**
   * A security finding in the outcome sent (an agent hash mismatch), on the MULTI that records it,
   * after it: from this tier to the one it answers, `status: flagged`, its kind and severity in `data`.
   */
  securityFound(pipeline: AuditWrites, assignment: Assignment, outcome: OutcomeMessage, finding: SecurityFinding): void {
    const to = this.tier === 'PROGRESS_MONITOR' ? AUDIT_CLIENT : outcome.target_tier;
    const entry: AuditEntry = {
      ...this.entry(outcome.timestamp, this.tier, to, 'security', 'sent', outcome, finding.message),
      status: 'flagged',
      data: { kind: finding.kind, severity: finding.severity },
    };
    appendAudit(pipeline, auditKey(this.prefix, assignment.rootId), [entry], null);
  }

  /** The questions a run puts to a person (docs/protocol.md#clarification), on the MULTI that starts its wait; the answers are the client's entries. */
  questionsAsked(pipeline: AuditWrites, rootId: string, questions: readonly Question[]): void {
    const at = this.time();
    const entries = questions.map((question) => this.entry(at, this.tier, AUDIT_CLIENT, 'question', 'sent', { id: question.id, correlation_id: null }, question.question));
    appendAudit(pipeline, auditKey(this.prefix, rootId), entries, this.refreshTtl());
  }

  /** What a blocked run waits on (docs/protocol.md#blocked-work), on the MULTI that starts its wait; the unblocks are the client's entries. */
  blockersReported(pipeline: AuditWrites, rootId: string, blockers: readonly Blocker[]): void {
    const at = this.time();
    const entries = blockers.map((blocker) => this.entry(at, this.tier, AUDIT_CLIENT, 'blocked', 'sent', { id: blocker.id, correlation_id: null }, blocker.blocker));
    appendAudit(pipeline, auditKey(this.prefix, rootId), entries, this.refreshTtl());
  }

  /** A job's progress, as it reports it (throttled by its reporter): from this tier to the one that asked for the work. */
  progress(rootId: string, messageId: string, text: string): void {
    const to = this.tier === 'PROGRESS_MONITOR' ? AUDIT_CLIENT : tierAbove(this.tier)!;
    this.appendNow(rootId, this.entry(this.time(), this.tier, to, 'progress', 'sent', { id: messageId, correlation_id: null }, text), false);
  }

  /**
   * A tool call of node `messageId`, however it ended, from its caller (`fleet:<specialist>`) to
   * `tool:<name>`: the arguments themselves only when `withArguments` (TIERFLOW_RECORD=full), else
   * their SHA-256; the result's size, never the result.
   */
  toolCalled(rootId: string, messageId: string, call: ToolCall, withArguments: boolean): void {
    const args = JSON.stringify(call.arguments) ?? 'null';
    const data = {
      tool: call.name,
      call_id: call.call_id,
      caller: call.caller,
      ...(withArguments ? { arguments: args.length > TOOL_ARGUMENTS_CHARS ? `${args.slice(0, TOOL_ARGUMENTS_CHARS)}…` : args } : { arguments_sha256: createHash('sha256').update(args).digest('hex') }),
      result_bytes: Buffer.byteLength(call.result),
      duration_ms: call.latency_ms,
      error: call.error,
    };
    const detail = `${call.name}: ${call.end}${call.error ? ` (${call.error.slice(0, 200)})` : ''}`;
    const entry = { ...this.entry(this.time(), this.tier, `tool:${call.name}`, 'tool', 'sent', { id: call.call_id, correlation_id: messageId }, detail), status: call.end, data };
    this.appendNow(rootId, entry, false);
  }

  private time(): string {
    return new Date(this.clock.now()).toISOString();
  }

  private refreshTtl(): number | null {
    return this.tier === 'PROGRESS_MONITOR' ? this.ttlMs : null;
  }

  private outcomeEntry(time: string, from: string, to: string, direction: AuditEntry['direction'], outcome: OutcomeMessage): AuditEntry {
    // A fork's node that answered with its original's outcome says so: `reused <original node>`.
    const reused = outcome.payload.resources_used?.reused_from;
    const detail = outcome.payload.error_type ?? (typeof reused === 'string' ? `reused ${reused}` : '');
    return { ...this.entry(time, from, to, 'outcome', direction, outcome, detail), status: outcome.payload.status, confidence: outcome.payload.confidence };
  }

  private entry(
    time: string,
    from: string,
    to: string,
    kind: AuditEntry['kind'],
    direction: AuditEntry['direction'],
    message: { readonly id: string; readonly correlation_id: string | null; readonly attestation?: unknown },
    detail: string,
  ): AuditEntry {
    // A handoff is logged with its governance attestation (docs/protocol.md#attestations), whose audit_ref names this entry by message id.
    const attested = isJsonObject(message.attestation) ? { data: { attestation: message.attestation } } : {};
    return { time, from, to, kind, direction, id: message.id, correlation_id: message.correlation_id ?? '', status: '', confidence: null, by: this.tier, attempt: null, detail, ...attested };
  }

  private appendNow(rootId: string, entry: AuditEntry, opensStream: boolean): void {
    // Not awaited: the entry is on the wire before the worker's next command; a failure is counted, never fatal.
    appendAuditNow(this.redis, auditKey(this.prefix, rootId), [entry], opensStream ? this.ttlMs : null).catch((error: unknown) => this.gaps.lost(rootId, error));
  }
}
