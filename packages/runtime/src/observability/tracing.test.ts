import { describe, expect, it } from 'vitest';
import { routingAttributes } from './tracing.js';

describe('routingAttributes', () => {
  it('puts a routing decision on a span, its scores as JSON', () => {
    const scores = [{ specialist: 'b', samples: 12, success_mean: 0.8, sampled: 0.83, cost_usd: null, latency_ms: null, score: 0.83 }];
    expect(routingAttributes({ mode: 'learned', chosen: 'b', reason: 'sampled', fixed: 'a', learned: 'b', expected_gain: 0.25, scores })).toEqual({
      'tierflow.routing.mode': 'learned',
      'tierflow.routing.chosen': 'b',
      'tierflow.routing.reason': 'sampled',
      'tierflow.routing.fixed': 'a',
      'tierflow.routing.learned': 'b',
      'tierflow.routing.expected_gain': 0.25,
      'tierflow.routing.scores': JSON.stringify(scores),
    });
  });

  it('leaves out what is null, missing or of the wrong type, and takes nothing from what is not an object', () => {
    expect(routingAttributes({ mode: 'fixed', chosen: 'a', reason: 'fixed', fixed: 'a', learned: null, expected_gain: null, scores: [] })).toEqual({
      'tierflow.routing.mode': 'fixed',
      'tierflow.routing.chosen': 'a',
      'tierflow.routing.reason': 'fixed',
      'tierflow.routing.fixed': 'a',
    });
    expect(routingAttributes({ mode: 3, chosen: ['a'], expected_gain: '0.2' })).toEqual({});
    for (const value of [undefined, null, 'learned', 4, ['a']]) expect(routingAttributes(value)).toEqual({});
  });
});
