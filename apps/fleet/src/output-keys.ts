/**
 * Where the Fleet keeps a delegation's artifacts: the first at `execution/outputs/<id>`
 * (docs/protocol.md#beads-keys), the n-th (n ≥ 1) at `execution/outputs/<id>/<n>`.
 */
export function outputKey(messageId: string, index: number): string {
  return index === 0 ? `execution/outputs/${messageId}` : `execution/outputs/${messageId}/${index}`;
}

/** Where the Fleet keeps a delegation's execution log. */
export function logKey(messageId: string): string {
  return `execution/logs/${messageId}`;
}
