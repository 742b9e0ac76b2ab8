/**
 * The mean of some confidences (a weighted average with weight 1 each), clamped into their own
 * [min, max]: summing can drift by an ulp, and an aggregate must never claim more certainty than
 * its most certain child nor less than its least certain one.
 *
 * @throws RangeError for an empty list.
 */
export function meanConfidence(confidences: readonly number[]): number {
  if (confidences.length === 0) throw new RangeError('meanConfidence needs at least one confidence');
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const confidence of confidences) {
    sum += confidence;
    min = Math.min(min, confidence);
    max = Math.max(max, confidence);
  }
  return Math.min(max, Math.max(min, sum / confidences.length));
}

/** Whether a confidence is a number within [0, 1] (NaN is not). */
export function isConfidence(value: number): boolean {
  return value >= 0 && value <= 1;
}
