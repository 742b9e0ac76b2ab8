import { seededRandom, type SpecialistStats } from '@tierflow/core';
import type { Subtask } from '@tierflow/runtime';
import { describe, expect, it } from 'vitest';
import { decisionLine, historyWanted, rerouteWithHistory, routeWithHistory, type HistoryOf, type RoutingSettings } from './choose-route.js';
import { statsAfter } from './test-history.js';

const table = { routing: { write: ['a', 'b', 'c'], '*': ['sim'] }, boundaries: null };
const settings = (mode: RoutingSettings['mode'], exploration = 0): RoutingSettings => ({
  mode,
  objective: { optimize: 'success', weight: 0 },
  exploration,
  random: seededRandom(7),
});
/** a fails most of the time, b succeeds most of the time, c is untried. */
const known: Record<string, SpecialistStats> = { a: statsAfter(5, 20), b: statsAfter(20, 2) };
const history: HistoryOf = (taskType, specialist) => (taskType === 'write' ? (known[specialist] ?? null) : null);
const subtask = (fields: Partial<Subtask> = {}): Subtask => ({ objective: 'o', task_type: 'write', ...fields });

describe('routeWithHistory', () => {
  it('fixed: the table’s first, the rest as alternates, no scores', () => {
    expect(routeWithHistory(subtask(), table, settings('fixed'), history)).toEqual({
      route: { specialist: 'a', alternates: ['b', 'c'] },
      decision: { mode: 'fixed', task_type: 'write', chosen: 'a', reason: 'fixed', fixed: 'a', learned: null, expected_gain: null, scores: [] },
    });
    expect(routeWithHistory(subtask({ task_type: 'other' }), table, settings('fixed'), history).decision).toMatchObject({ chosen: 'sim', reason: 'only_candidate' });
  });

  it('learned: tries the untried candidate first, then takes the best record; shadow routes as fixed and says what learned would do', () => {
    const untried = routeWithHistory(subtask(), table, settings('learned'), history);
    expect(untried.route).toEqual({ specialist: 'c', alternates: ['a', 'b'] });
    expect(untried.decision).toMatchObject({ mode: 'learned', chosen: 'c', reason: 'untried', fixed: 'a', learned: 'c' });
    expect(untried.decision.scores.map((score) => score.specialist)).toEqual(['a', 'b', 'c']);

    const tried = { ...table, routing: { write: ['a', 'b'] } };
    const learned = routeWithHistory(subtask(), tried, settings('learned'), history);
    expect(learned.decision).toMatchObject({ chosen: 'b', reason: 'best_mean', fixed: 'a', learned: 'b' });
    expect(learned.decision.expected_gain).toBeGreaterThan(0.5);
    expect(learned.route).toEqual({ specialist: 'b', alternates: ['a'] });

    const shadow = routeWithHistory(subtask(), tried, settings('shadow'), history);
    expect(shadow.route).toEqual({ specialist: 'a', alternates: ['b'] });
    expect(shadow.decision).toMatchObject({ mode: 'shadow', chosen: 'a', learned: 'b', reason: 'best_mean' });
    expect(shadow.decision.expected_gain).toBe(learned.decision.expected_gain);
  });

  it('a required hint wins in every mode, with reason hint; a preferred one is only the fixed pick', () => {
    for (const mode of ['fixed', 'learned', 'shadow'] as const) {
      expect(routeWithHistory(subtask({ specialist_hint: 'a' }), table, settings(mode), history)).toEqual({
        route: { specialist: 'a', alternates: ['b', 'c'] },
        decision: { mode, task_type: 'write', chosen: 'a', reason: 'hint', fixed: 'a', learned: null, expected_gain: null, scores: [] },
      });
    }
    const preferred = routeWithHistory(subtask({ specialist_hint: 'a', specialist_hint_mode: 'prefer' }), { ...table, routing: { write: ['b'] } }, settings('learned'), history);
    expect(preferred.decision).toMatchObject({ chosen: 'b', fixed: 'a', reason: 'best_mean' });
    expect(preferred.route).toEqual({ specialist: 'b', alternates: ['a'] });
    expect(routeWithHistory(subtask({ specialist_hint: 'z', specialist_hint_mode: 'prefer' }), table, settings('fixed'), history).route).toEqual({
      specialist: 'z',
      alternates: ['a', 'b', 'c'],
    });
  });

  it('a pinned agent goes where it is pinned and nowhere else', () => {
    const pinned = subtask({ target_agent: { agent_id: 'gpu', agent_version: '1', prompt_hash: 'h' } });
    expect(routeWithHistory(pinned, table, settings('learned'), history)).toMatchObject({ route: { specialist: 'gpu', alternates: [] }, decision: { reason: 'hint' } });
    expect(historyWanted(pinned, table, 'learned')).toEqual([]);
  });

  it('a revision’s subtask avoids the specialists that failed it and is ranked by history, in every mode', () => {
    for (const mode of ['fixed', 'learned', 'shadow'] as const) {
      const revised = routeWithHistory(subtask({ avoid_specialists: ['b'] }), table, settings(mode), history);
      // c is untried and a has a poor record: ranked by posterior mean, the untried c (0.5) beats a.
      expect(revised.decision).toMatchObject({ mode, chosen: 'c', reason: 'revision', fixed: 'a' });
      expect(revised.route).toEqual({ specialist: 'c', alternates: ['a'] });
    }
    // Nothing left but what it avoids: routed among those anyway.
    expect(routeWithHistory(subtask({ avoid_specialists: ['a', 'b', 'c'] }), table, settings('fixed'), history).route.specialist).toBe('b');
    // A required hint wins even where a revision avoids it; a preferred one is passed over.
    expect(routeWithHistory(subtask({ specialist_hint: 'b', avoid_specialists: ['b'] }), table, settings('fixed'), history).decision).toMatchObject({ chosen: 'b', reason: 'hint' });
    expect(routeWithHistory(subtask({ specialist_hint: 'b', specialist_hint_mode: 'prefer', avoid_specialists: ['b'] }), table, settings('fixed'), history).decision).toMatchObject({
      chosen: 'c',
      reason: 'revision',
    });
    expect(routeWithHistory(subtask({ specialist_hint: 'b', avoid_specialists: ['b'], task_type: 'x' }), { ...table, routing: {} }, settings('fixed'), history).decision).toMatchObject({
      chosen: 'b',
      reason: 'hint',
    });
  });

  it('learned routing explores by Thompson draws as often as exploration says, the same way for the same seed', () => {
    const tried = { ...table, routing: { write: ['a', 'b'] } };
    const reasons = (seed: number): string[] => {
      const random = seededRandom(seed);
      return Array.from({ length: 200 }, () => routeWithHistory(subtask(), tried, { ...settings('learned', 0.3), random }, history).decision.reason);
    };
    const sampled = reasons(1).filter((reason) => reason === 'sampled').length;
    expect(sampled).toBeGreaterThan(30);
    expect(sampled).toBeLessThan(90);
    expect(reasons(1)).toEqual(reasons(1));
  });

  it('asks for history only where it decides', () => {
    expect(historyWanted(subtask(), table, 'fixed')).toEqual([]);
    expect(historyWanted(subtask(), table, 'learned')).toEqual(['a', 'b', 'c']);
    expect(historyWanted(subtask(), table, 'shadow')).toEqual(['a', 'b', 'c']);
    expect(historyWanted(subtask({ specialist_hint: 'a' }), table, 'learned')).toEqual([]);
    expect(historyWanted(subtask({ avoid_specialists: ['a'] }), table, 'fixed')).toEqual(['b', 'c']);
  });

  it('fails permanently when nothing applies', () => {
    expect(() => routeWithHistory(subtask({ task_type: 'x' }), { routing: {}, boundaries: null }, settings('learned'), history)).toThrow(expect.objectContaining({ code: 'no_route' }));
  });
});

describe('rerouteWithHistory', () => {
  it('chooses among what is left as the first route was chosen, and says it is a re-route', () => {
    expect(rerouteWithHistory(subtask(), ['a', 'b'], settings('fixed'), history)).toMatchObject({ route: { specialist: 'a', alternates: ['b'] }, decision: { chosen: 'a', reason: 'reroute' } });
    expect(rerouteWithHistory(subtask(), ['a', 'b'], settings('learned'), history)).toMatchObject({ route: { specialist: 'b', alternates: ['a'] }, decision: { chosen: 'b', reason: 'reroute' } });
    expect(rerouteWithHistory(subtask(), ['a'], settings('learned'), history)).toMatchObject({ route: { specialist: 'a', alternates: [] }, decision: { chosen: 'a', reason: 'reroute' } });
  });
});

describe('decisionLine', () => {
  it('says what was chosen and why, and what else was in view', () => {
    const base = { task_type: 'write', scores: [] };
    expect(decisionLine({ ...base, mode: 'learned', chosen: 'b', reason: 'sampled', fixed: 'a', learned: 'b', expected_gain: 0.12 })).toBe('learned: b (sampled); fixed a; expected gain +0.120');
    expect(decisionLine({ ...base, mode: 'shadow', chosen: 'a', reason: 'best_mean', fixed: 'a', learned: 'b', expected_gain: -0.5 })).toBe('shadow: a (best_mean); learned b; expected gain -0.500');
    expect(decisionLine({ ...base, mode: 'fixed', chosen: 'a', reason: 'fixed', fixed: 'a', learned: null, expected_gain: null })).toBe('fixed: a (fixed)');
  });
});
