import type { AggregationStrategy, OutcomeStatus } from '@tierflow/protocol';
import { childName, classifyChild, nonBlank, type AggregationCounts, type ChildClass, type ChildResult } from './child-result.js';
import type { Majority } from './strategy-verdict.js';

/** What the plain-words summary needs to know about an aggregation. */
export interface ReportFacts {
  readonly strategy: AggregationStrategy;
  readonly status: OutcomeStatus;
  readonly counts: AggregationCounts;
  readonly majority: Majority | null;
  readonly winner: ChildResult | null;
  readonly questions: readonly string[];
}

function plural(count: number, noun: string): string {
  return count === 1 ? noun : `${noun}s`;
}

/**
 * One line in plain words, e.g. `2/3 subtasks succeeded (all_success); majority succeeded` or
 * `0/3 subtasks succeeded (all_success): all failed`. The fraction is over the counted children.
 */
export function summarize(facts: ReportFacts): string {
  const { strategy, counts } = facts;
  const counted = counts.total - counts.cancelled;
  if (counted === 0) {
    return counts.total === 1 ? `the only subtask was cancelled (${strategy})` : `all ${counts.total} subtasks were cancelled (${strategy})`;
  }
  let head = `${counts.succeeded}/${counted} ${plural(counted, 'subtask')} succeeded (${strategy})`;
  if (counts.progressed > 0) head += `, ${counts.progressed} partial`;
  if (counts.cancelled > 0) head += `, ${counts.cancelled} cancelled`;
  return head + tail(facts);
}

function tail(facts: ReportFacts): string {
  switch (facts.status) {
    case 'success':
      return facts.winner ? `; winner ${facts.winner.message_id} (${childName(facts.winner)})` : '';
    case 'partial':
      return facts.majority === 'succeeded' ? '; majority succeeded' : '; majority failed: revise the strategy';
    case 'failed':
      return ': all failed';
    case 'blocked':
      return facts.counts.waits === 1 ? ': blocked on 1 subtask' : `: blocked on ${facts.counts.waits} subtasks`;
    case 'needs_clarification': {
      const asked = facts.questions.length;
      return asked === 0 ? ': needs clarification' : `: needs clarification (${asked} ${plural(asked, 'question')})`;
    }
    default:
      // aggregate() yields no other status once a child is counted.
      return `: ${facts.status}`;
  }
}

/** How a report words a child that did not succeed, by its class: with a reason, and alone. */
const PHRASES: Readonly<Record<ChildClass, { readonly verb: string; readonly alone: string }>> = {
  succeeded: { verb: 'succeeded', alone: 'succeeded' },
  progressed: { verb: 'made partial progress', alone: 'made partial progress' },
  failed: { verb: 'failed', alone: 'failed' },
  asks: { verb: 'asks', alone: 'asks for clarification' },
  waits: { verb: 'is blocked', alone: 'is blocked' },
  cancelled: { verb: 'was cancelled', alone: 'was cancelled' },
};

/** `test-lora failed: timeout after 30000ms`; lacking a detail, the error type, and for a failure its status (`timeout`, `blocked`, …). */
function describeChild(child: ChildResult): string {
  const kind = classifyChild(child);
  const statusSaysMore = kind === 'failed' && child.status !== 'failed';
  const reason = nonBlank(child.error_detail) ?? nonBlank(child.error_type) ?? (statusSaysMore ? child.status : null);
  const phrase = PHRASES[kind];
  return reason === null ? `${childName(child)} ${phrase.alone}` : `${childName(child)} ${phrase.verb}: ${reason}`;
}

/**
 * Failures escalate with all their details (docs/protocol.md#escalation): one entry per child
 * that did not succeed, joined with `; `, or null when the aggregate succeeded or nothing is left
 * to say. Cancelled children are named only when every child was cancelled; otherwise they did
 * not fail and are left out.
 */
export function errorDetailOf(status: OutcomeStatus, children: readonly ChildResult[]): string | null {
  if (status === 'success') return null;
  const allCancelled = status === 'cancelled';
  const entries = children
    .filter((child) => {
      const kind = classifyChild(child);
      return allCancelled ? kind === 'cancelled' : kind !== 'succeeded' && kind !== 'cancelled';
    })
    .map(describeChild);
  return entries.length === 0 ? null : entries.join('; ');
}

/** The questions of the children that asked for clarification (their non-blank `error_detail`), in order. */
export function questionsOf(children: readonly ChildResult[]): string[] {
  return detailsOf(children, 'asks');
}

/** What the blocked children wait on (their non-blank `error_detail`), in order. */
export function blockersOf(children: readonly ChildResult[]): string[] {
  return detailsOf(children, 'waits');
}

function detailsOf(children: readonly ChildResult[], kind: ChildClass): string[] {
  const details: string[] = [];
  for (const child of children) {
    const detail = classifyChild(child) === kind ? nonBlank(child.error_detail) : null;
    if (detail !== null) details.push(detail);
  }
  return details;
}
