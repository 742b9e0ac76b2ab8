import { evidenceGradeSchema, fastSafeParse, handoffMetadataShape, TierflowError } from '@tierflow/protocol';
import { z } from 'zod';
import { SPECIALIST_STATUSES } from './specialist.js';

const count = z.int().nonnegative();

/** What a sim does differently when asked again: its answer's fields, scripted apart. */
const simAnswerSchema = z.strictObject({
  status: z.enum(SPECIALIST_STATUSES).optional(),
  confidence: z.number().min(0).max(1).optional(),
  output_bytes: count.optional(),
});

/**
 * The script of the `sim` specialist, read from `task_data.sim`. Strict, so a misspelt field is
 * an error rather than a silently ignored drill.
 */
export const simConfigSchema = z.strictObject({
  /** The status to report. */
  status: z.enum(SPECIALIST_STATUSES).default('success'),
  confidence: z.number().min(0).max(1).default(0.9),
  /** The evidence grade of its work (docs/protocol.md#evidence-grades); none when left out. */
  evidence_grade: evidenceGradeSchema.optional(),
  /** format, sources_count, data_freshness, gaps, assumptions: handoff metadata to report (docs/protocol.md#handoff-metadata). */
  ...handoffMetadataShape,
  /** Milliseconds of pretend work; cut short by cancellation. */
  delay_ms: count.default(0),
  /** Throw a retryable error while `attempt <= fail_times`. */
  fail_times: count.default(0),
  /** Throw a permanent error. */
  permanent_error: z.boolean().default(false),
  /** Throw SpecialistUnavailableError, as a specialist that is not loaded would. */
  unavailable: z.boolean().default(false),
  /** Reject the handoff before starting, with this reason (docs/protocol.md#explicit-rejection). */
  reject: z.string().trim().min(1).optional(),
  /** Produce one `text` artifact of exactly this many ASCII bytes. */
  output_bytes: count.optional(),
  /** The clarifying question sent with `needs_clarification`. */
  question: z.string().min(1).optional(),
  /**
   * Ask this question (`needs_clarification`) until the delegation carries an answer to it in
   * `task_data.clarifications`; then do as scripted, the answer added as a `text` artifact.
   */
  ask: z.string().trim().min(1).optional(),
  /**
   * Report `blocked` on this (what it waits on) until the delegation carries an unblock note for
   * it in `task_data.unblocked`; then do as scripted, the note added as a `text` artifact.
   */
  block: z.string().trim().min(1).optional(),
  /** How it answers a repair pass (`on_format_mismatch: adapt`, docs/protocol.md#error-policies). */
  repaired: simAnswerSchema.optional(),
  /** How it answers when sent again with a concern (`task_data.concern`, `on_low_confidence: retry`). */
  concerned: simAnswerSchema.optional(),
});
export type SimConfig = z.output<typeof simConfigSchema>;
export type SimConfigInput = z.input<typeof simConfigSchema>;

/**
 * The sim script in `taskData.sim`, defaults filled in; no `sim` at all means plain success.
 *
 * @throws TierflowError (permanent, code `invalid_sim_config`) naming each bad field, e.g. `task_data.sim.confidence`.
 */
export function parseSimConfig(taskData: Readonly<Record<string, unknown>>): SimConfig {
  const parsed = fastSafeParse(simConfigSchema, taskData.sim ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${['task_data', 'sim', ...issue.path.map(String)].join('.')}: ${issue.message}`);
  throw TierflowError.permanent(`sim: invalid config: ${problems.join('; ')}`, { code: 'invalid_sim_config' });
}
