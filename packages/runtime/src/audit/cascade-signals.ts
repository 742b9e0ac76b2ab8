import { CASCADE_ACTION_NAMES, type CascadeCheck, type OutcomeMessage, type TierName } from '@tierflow/protocol';

/**
 * The confidence cascade's three signals to people (docs/protocol.md#confidence-cascade): work
 * passed on flagged as uncertain, work held for review, work rejected and escalated.
 */
export const CASCADE_SIGNALS = ['low_confidence', 'needs_review', 'rejected'] as const;
export type CascadeSignal = (typeof CASCADE_SIGNALS)[number];

/** What the tree shows on a node whose outcome a tier above checked and did not simply accept. */
export interface NodeCascade {
  readonly signal: CascadeSignal;
  /** The node's confidence the check read, and the bound it met (or, rejected, missed). */
  readonly confidence: number;
  readonly threshold: number;
  readonly checked_by: TierName;
}

const SIGNAL_OF = {
  proceed: null,
  flag_uncertainty: 'low_confidence',
  needs_review: 'needs_review',
  reject_and_escalate: 'rejected',
} as const satisfies Record<CascadeCheck['action'], CascadeSignal | null>;

const OUTCOME_SUFFIX = '.out';

/**
 * The checks behind a run's outcomes, by the node whose outcome was checked (an outcome's id is
 * its node's with `.out`): each outcome carries the gravest check behind it, so the same check
 * may come from several; the gravest for a node wins. Pure.
 */
export function cascadeByNode(outcomes: Iterable<OutcomeMessage>): Map<string, NodeCascade> {
  const found = new Map<string, NodeCascade & { readonly rank: number }>();
  for (const outcome of outcomes) {
    const check = outcome.payload.cascade_check;
    const signal = check ? SIGNAL_OF[check.action] : null;
    if (!check || signal === null || !check.upstream_id.endsWith(OUTCOME_SUFFIX)) continue;
    const node = check.upstream_id.slice(0, -OUTCOME_SUFFIX.length);
    const rank = CASCADE_ACTION_NAMES.indexOf(check.action);
    if ((found.get(node)?.rank ?? -1) >= rank) continue;
    found.set(node, { signal, confidence: check.confidence, threshold: check.threshold, checked_by: check.checked_by, rank });
  }
  return new Map([...found].map(([node, { rank: _rank, ...cascade }]) => [node, cascade]));
}
