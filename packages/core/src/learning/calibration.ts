import { isConfidence } from '../mean-confidence.js';
import { calibrationBinOf, type SpecialistStats } from './specialist-stats.js';

/**
 * `minSamples`: decayed attempts in the reported value's bin before its history is trusted.
 * `priorWeight`: how many pseudo-attempts the reported value itself counts for, so a calibrated
 * value moves from the report towards the measured rate as the evidence grows.
 */
export interface CalibrationOptions {
  readonly minSamples: number;
  readonly priorWeight: number;
}

export const DEFAULT_CALIBRATION: CalibrationOptions = { minSamples: 10, priorWeight: 5 };

/**
 * A specialist's reported confidence against how often it was right when it reported about as
 * much: the reported value's bin (its tenth) of the specialist's history. With at least
 * `minSamples` there, `(successes + priorWeight × reported) / (samples + priorWeight)`; otherwise
 * the reported value as it is (`calibrated: false`). `samples` is the bin's.
 *
 * @throws RangeError for a reported value outside [0, 1].
 */
export function calibrateConfidence(reported: number, stats: SpecialistStats | null, options: CalibrationOptions = DEFAULT_CALIBRATION): { confidence: number; calibrated: boolean; samples: number } {
  if (!isConfidence(reported)) throw new RangeError(`reported confidence must be within [0, 1], got ${reported}`);
  const bin = stats?.calibration.bins[calibrationBinOf(reported)];
  const samples = bin?.samples ?? 0;
  if (bin === undefined || bin.success_rate === null || samples < options.minSamples) return { confidence: reported, calibrated: false, samples };
  const prior = Math.max(0, options.priorWeight);
  const confidence = (bin.success_rate * samples + prior * reported) / (samples + prior);
  return { confidence: Math.min(1, Math.max(0, confidence)), calibrated: true, samples };
}
