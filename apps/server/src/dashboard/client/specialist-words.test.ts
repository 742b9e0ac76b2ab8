import { describe, expect, it } from 'vitest';
import { calibrationLean, calibrationText, decayedCount, latency, meanUsd, percent, routingText, signedGain, tokens } from './specialist-words.js';

describe('how a specialist’s history is worded', () => {
  it('leans over-confident when it reports more than it delivers, under-confident when less, weighed by samples', () => {
    expect(calibrationLean([])).toBeNull();
    expect(calibrationLean([{ samples: 0, mean_reported: 0.9, success_rate: 0.1 }])).toBeNull();
    const over = calibrationLean([{ samples: 10, mean_reported: 0.9, success_rate: 0.6 }]);
    expect(over?.gap).toBeCloseTo(0.3, 10);
    expect(over?.lean).toBe('over-confident');
    expect(calibrationLean([{ samples: 10, mean_reported: 0.5, success_rate: 0.9 }])?.lean).toBe('under-confident');
    // 30 samples 0.04 over and 10 samples 0.04 under: 0.02 over on the whole, within the margin.
    const mixed = calibrationLean([
      { samples: 30, mean_reported: 0.94, success_rate: 0.9 },
      { samples: 10, mean_reported: 0.46, success_rate: 0.5 },
      { samples: 5, mean_reported: null, success_rate: null },
    ]);
    expect(mixed?.gap).toBeCloseTo(0.02, 10);
    expect(mixed?.lean).toBe('calibrated');
  });

  it('says the calibration error and its lean, or a dash before there is enough history', () => {
    expect(calibrationText({ bins: [{ samples: 10, mean_reported: 0.9, success_rate: 0.6 }], ece: 0.3 })).toBe('ECE 0.30 over-confident');
    expect(calibrationText({ bins: [{ samples: 10, mean_reported: 0.9, success_rate: 0.6 }], ece: null })).toBe('-');
    expect(calibrationText({ bins: [], ece: 0.1 })).toBe('-');
  });

  it('words rates, decayed counts, latencies, tokens, costs and gains', () => {
    expect([percent(0.876), percent(null), percent(1)]).toEqual(['88%', '-', '100%']);
    expect([decayedCount(3.46), decayedCount(0), decayedCount(12.5), decayedCount(1_234.4)]).toEqual(['3.5', '0', '13', '1,234']);
    expect([latency(349.6), latency(1_240), latency(90_000), latency(null), latency(undefined)]).toEqual(['350 ms', '1.2 s', '1.5 min', '-', '-']);
    expect([tokens(1_203.6), tokens(0), tokens(null)]).toEqual(['1,204', '-', '-']);
    expect([meanUsd(0.00210004), meanUsd(0), meanUsd(null)]).toEqual(['$0.0021', '-', '-']);
    expect([signedGain(0.041), signedGain(-0.1), signedGain(0)]).toEqual(['+0.04', '-0.10', '+0.00']);
  });

  it('puts a task type’s routing in a sentence, shadow’s counterfactual included; null when nothing was routed', () => {
    expect(routingText(null)).toBeNull();
    expect(routingText({ routed: 0, first_choice_success_rate: null, shadow: null })).toBeNull();
    expect(routingText({ routed: 12, first_choice_success_rate: 0.75, shadow: null })).toBe('12 routed, the first choice succeeded in 75%');
    expect(routingText({ routed: 40, first_choice_success_rate: 0.5, shadow: { decisions: 40, differs: 9.5, mean_expected_gain: null } })).toBe(
      '40 routed, the first choice succeeded in 50%; shadow: learned routing would have chosen otherwise in 9.5 of 40',
    );
  });
});
