/**
 * How much a deployment records of what each node did (docs/operations.md#recording):
 * - `full`: inputs, outcomes, passes and model calls with their prompts and answers;
 * - `metadata`: the same, with every message, prompt and answer replaced by its size and hash;
 * - `none`: nothing.
 */
export const RECORD_MODES = ['full', 'metadata', 'none'] as const;
export type RecordMode = (typeof RECORD_MODES)[number];
export const DEFAULT_RECORD_MODE: RecordMode = 'full';
