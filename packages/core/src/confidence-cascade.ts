import { TierflowError, type CASCADE_ACTION_NAMES } from '@tierflow/protocol';
import { isConfidence } from './mean-confidence.js';

/** What a receiver does with upstream work, by the confidence it came with (docs/protocol.md#confidence-cascade). */
export const CASCADE_ACTIONS = {
  /** Proceed normally. */
  proceed: 'proceed',
  /** Proceed, but flag the uncertainty in the output. */
  flagUncertainty: 'flag_uncertainty',
  /** Ask for review before relying on it. */
  needsReview: 'needs_review',
  /** Refuse it and escalate to its owner. */
  rejectAndEscalate: 'reject_and_escalate',
} as const satisfies Record<string, CascadeAction>;
/** The wire's action names (the protocol's schema is their one source). */
export type CascadeAction = (typeof CASCADE_ACTION_NAMES)[number];

/** Lower bounds: at least `proceed` proceeds, at least `flag` flags, at least `review` asks for review, below it rejects. */
export interface CascadeThresholds {
  readonly proceed: number;
  readonly flag: number;
  readonly review: number;
}

/** The default bands: 0.8+ proceed, 0.5–0.8 flag, 0.3–0.5 review, under 0.3 reject. */
export const DEFAULT_CASCADE_THRESHOLDS = { proceed: 0.8, flag: 0.5, review: 0.3 } as const satisfies CascadeThresholds;

/** The outcome of a cascade check, with the bound that decided it (the one met, or for a rejection the one missed). */
export interface CascadeDecision {
  readonly action: CascadeAction;
  readonly confidence: number;
  readonly threshold: number;
}

/** How grave each action is, from 0 (proceed) to 3 (reject): lower confidence never yields a lighter action. */
export const CASCADE_SEVERITY: Readonly<Record<CascadeAction, number>> = {
  proceed: 0,
  flag_uncertainty: 1,
  needs_review: 2,
  reject_and_escalate: 3,
};

const KEYS = ['proceed', 'flag', 'review'] as const satisfies readonly (keyof CascadeThresholds)[];

/**
 * Fills in the default thresholds and checks them: each within [0, 1], and proceed ≥ flag ≥ review.
 *
 * @throws TierflowError (permanent, code `invalid_config`) naming what is wrong.
 */
export function resolveCascadeThresholds(input: Partial<CascadeThresholds> = {}): CascadeThresholds {
  const resolved: CascadeThresholds = {
    proceed: input.proceed ?? DEFAULT_CASCADE_THRESHOLDS.proceed,
    flag: input.flag ?? DEFAULT_CASCADE_THRESHOLDS.flag,
    review: input.review ?? DEFAULT_CASCADE_THRESHOLDS.review,
  };
  // Say which values were defaults: a lone override can clash with one the caller never wrote.
  const show = (key: keyof CascadeThresholds): string => `${key} (${resolved[key]}${input[key] === undefined ? ', the default' : ''})`;
  const problems: string[] = [];
  for (const key of KEYS) {
    if (!isConfidence(resolved[key])) problems.push(`${show(key)} must be a number within [0, 1]`);
  }
  if (resolved.proceed < resolved.flag) problems.push(`${show('proceed')} must be at least ${show('flag')}`);
  if (resolved.flag < resolved.review) problems.push(`${show('flag')} must be at least ${show('review')}`);
  if (problems.length > 0) {
    throw TierflowError.permanent(`invalid cascade thresholds: ${problems.join('; ')}`, { code: 'invalid_config' });
  }
  return resolved;
}

/**
 * The confidence cascade check (docs/protocol.md#confidence-cascade): what to do with upstream
 * work given its confidence.
 *
 * | Confidence c          | Action                |
 * | --------------------- | --------------------- |
 * | c ≥ proceed (0.8)     | `proceed`             |
 * | flag (0.5) ≤ c < 0.8  | `flag_uncertainty`    |
 * | review (0.3) ≤ c < 0.5| `needs_review`        |
 * | c < review (0.3)      | `reject_and_escalate` |
 *
 * @param thresholds defaults to {@link DEFAULT_CASCADE_THRESHOLDS}; checked as by {@link resolveCascadeThresholds}.
 * @throws RangeError for a confidence outside [0, 1] or NaN.
 */
export function cascadeCheck(confidence: number, thresholds: CascadeThresholds = DEFAULT_CASCADE_THRESHOLDS): CascadeDecision {
  if (!isConfidence(confidence)) throw new RangeError(`confidence must be within [0, 1], got ${confidence}`);
  const bounds = thresholds === DEFAULT_CASCADE_THRESHOLDS ? thresholds : resolveCascadeThresholds(thresholds);
  if (confidence >= bounds.proceed) return { action: CASCADE_ACTIONS.proceed, confidence, threshold: bounds.proceed };
  if (confidence >= bounds.flag) return { action: CASCADE_ACTIONS.flagUncertainty, confidence, threshold: bounds.flag };
  if (confidence >= bounds.review) return { action: CASCADE_ACTIONS.needsReview, confidence, threshold: bounds.review };
  return { action: CASCADE_ACTIONS.rejectAndEscalate, confidence, threshold: bounds.review };
}
