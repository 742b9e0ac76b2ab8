import { describe, expect, it } from 'vitest';
import { addToSums } from './decayed-sums.js';
import { revisionIncrements, revisionOutlook, revisionStats } from './revision-outlook.js';

const HOUR = 3_600_000;

describe('revision history', () => {
  it('counts the revisions of a run and whether it then succeeded', () => {
    expect(revisionIncrements(3, true)).toEqual({ revisions: 3, succeeded: 1 });
    expect(revisionIncrements(1, false)).toEqual({ revisions: 1, succeeded: 0 });
    expect(revisionIncrements(0, true)).toEqual({});
  });

  it('reads back decayed', () => {
    let value = addToSums(null, revisionIncrements(2, false), 0, HOUR);
    value = addToSums(value, revisionIncrements(2, true), 0, HOUR);
    expect(revisionStats(value, 0)).toEqual({ samples: 4, succeeded: 1 });
    expect(revisionStats(value, HOUR)).toEqual({ samples: 2, succeeded: 0.5 });
    expect(revisionStats(null, 0)).toEqual({ samples: 0, succeeded: 0 });
  });
});

describe('revisionOutlook', () => {
  it('revises with no history and no budget', () => {
    expect(revisionOutlook({ stats: null, budgetLeftUsd: null, roundCostUsd: null })).toEqual({ revise: true, reason: null });
  });

  it('revises while the record is too thin to judge, however bad', () => {
    expect(revisionOutlook({ stats: { samples: 4, succeeded: 0 }, budgetLeftUsd: null, roundCostUsd: null }).revise).toBe(true);
  });

  it('stops when revisions of the task type rarely succeed, and says so', () => {
    const outlook = revisionOutlook({ stats: { samples: 12, succeeded: 1 }, budgetLeftUsd: null, roundCostUsd: null });
    expect(outlook.revise).toBe(false);
    expect(outlook.reason).toBe('revisions of this task type rarely succeed: 8% of 12 recent revisions ended in success, under 10%');
    expect(revisionOutlook({ stats: { samples: 12, succeeded: 2 }, budgetLeftUsd: null, roundCostUsd: null }).revise).toBe(true);
  });

  it('takes its own thresholds', () => {
    const stats = { samples: 3, succeeded: 1 };
    expect(revisionOutlook({ stats, budgetLeftUsd: null, roundCostUsd: null, minSamples: 3, minSuccessRate: 0.5 }).revise).toBe(false);
  });

  it('stops when the budget left cannot pay for another round', () => {
    const outlook = revisionOutlook({ stats: null, budgetLeftUsd: 0.01, roundCostUsd: 0.03 });
    expect(outlook).toEqual({ revise: false, reason: 'the budget left ($0.0100) cannot pay for another round (about $0.0300)' });
    expect(revisionOutlook({ stats: null, budgetLeftUsd: 0.05, roundCostUsd: 0.03 }).revise).toBe(true);
    expect(revisionOutlook({ stats: null, budgetLeftUsd: 0.01, roundCostUsd: null }).revise).toBe(true);
  });

  it('gives every reason that holds', () => {
    const outlook = revisionOutlook({ stats: { samples: 6.5, succeeded: 0 }, budgetLeftUsd: 0, roundCostUsd: 0.5 });
    expect(outlook.revise).toBe(false);
    expect(outlook.reason).toBe(
      'revisions of this task type rarely succeed: 0% of 6.5 recent revisions ended in success, under 10%; the budget left ($0.0000) cannot pay for another round (about $0.5000)',
    );
  });
});
