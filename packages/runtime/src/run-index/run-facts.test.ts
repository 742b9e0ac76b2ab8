import { describe, expect, it } from 'vitest';
import { clientFacts, finalFacts, INDEXED_OBJECTIVE_CHARS, indexedRun, nodeFacts } from './run-facts.js';
import { matchesFacts, matchesStatus, filtersBeyondStatus, filtersTree } from './run-filter.js';

const pairs = (flat: readonly string[]): Record<string, string> => Object.fromEntries(Array.from({ length: flat.length / 2 }, (_, index) => [flat[2 * index]!, flat[2 * index + 1]!]));

describe('the facts a run leaves in the index', () => {
  it('names what a node saw: its task type, and its outcome’s specialist, model and error type', () => {
    expect(pairs(nodeFacts('code', { resources_used: { specialist: 'sim', model: 'gpt-x', usage: {} }, error_type: 'timeout' }))).toEqual({
      't:code': '1',
      's:sim': '1',
      'm:gpt-x': '1',
      'e:timeout': '1',
    });
    // Only strings count: a policy's resources_used is free-form.
    expect(pairs(nodeFacts('solve', { resources_used: { specialist: 3, model: '' }, error_type: null }))).toEqual({ 't:solve': '1' });
  });

  it('keeps the objective and the final outcome', () => {
    expect(pairs(clientFacts('x'.repeat(5_000), 42))).toEqual({ objective: 'x'.repeat(INDEXED_OBJECTIVE_CHARS), submitted_at: '42' });
    expect(pairs(finalFacts({ status: 'failed', error_type: 'timeout' }, 99))).toEqual({ status: 'failed', error_type: 'timeout', finished_at: '99' });
  });

  it('reads a run back without trusting it', () => {
    const monitor = { ...pairs(finalFacts({ status: 'success', error_type: null }, 200)), 't:solve': '1' };
    const run = indexedRun('r', 100, { client: { objective: 'Sort it' }, monitor, tiers: [monitor, { 's:sim': '1', 't:code': '1', 'e:timeout': '1' }], budget: ['10', '5', '2500'] });
    expect(run).toEqual({
      rootId: 'r',
      submittedAt: 100,
      objective: 'Sort it',
      final: { status: 'success', errorType: null, finishedAt: 200 },
      seen: { taskTypes: ['code', 'solve'], specialists: ['sim'], models: [], errorTypes: ['timeout'] },
      tokens: 15,
      costUsd: 0.0025,
    });
    const broken = indexedRun('r', 100, { client: {}, monitor: { status: 'done', finished_at: 'soon' }, tiers: null, budget: ['many', null] });
    expect(broken).toMatchObject({ objective: null, final: null, tokens: 0, costUsd: 0, seen: { taskTypes: [] } });
  });
});

describe('RunFilter', () => {
  const run = indexedRun('r', 1_000, {
    client: { objective: 'Implement Binary Search' },
    monitor: {},
    tiers: [{ 't:code': '1', 's:sim': '1', 'm:gpt-x': '1', 'e:timeout': '1' }],
    budget: ['0', '0', '1500'],
  });

  it('keeps a run that passes every field given', () => {
    expect(matchesFacts(run, {})).toBe(true);
    expect(
      matchesFacts(run, { text: 'binary SEARCH', taskType: 'code', specialist: 'sim', model: 'gpt-x', errorType: 'timeout', since: 1_000, until: 1_000, minCostUsd: 0.0015, maxCostUsd: 0.0015 }),
    ).toBe(true);
  });

  it('drops it for any field that does not hold', () => {
    for (const filter of [
      { text: 'merge sort' },
      { taskType: 'review' },
      { specialist: 'llm' },
      { model: 'gpt' },
      { errorType: 'format_mismatch' },
      { since: 1_001 },
      { until: 999 },
      { minCostUsd: 0.002 },
      { maxCostUsd: 0.001 },
    ])
      expect(matchesFacts(run, filter), JSON.stringify(filter)).toBe(false);
  });

  it('matches a status, and says which filters need more than the queue', () => {
    expect(matchesStatus('success', { status: 'success' })).toBe(true);
    expect(matchesStatus('failed', { status: 'success' })).toBe(false);
    expect(matchesStatus('failed', {})).toBe(true);
    expect(filtersBeyondStatus({ status: 'running' })).toBe(false);
    expect(filtersBeyondStatus({ minCostUsd: 0 })).toBe(true);
    expect(filtersTree({ text: 'x' })).toBe(false);
    expect(filtersTree({ model: 'm' })).toBe(true);
  });
});
