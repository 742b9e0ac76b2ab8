import { z } from 'zod';

/**
 * What a sender asks its receiver to do when work goes wrong in one of three ways
 * (docs/protocol.md#error-policies). Every field is optional: what a
 * delegation leaves out, the deployment's default decides.
 */

/** Upstream work under the confidence cascade's flag bound: pass it on flagged, send it once more with the concern, or escalate (the cascade's bands). */
export const LOW_CONFIDENCE_POLICIES = ['flag_and_continue', 'retry', 'escalate'] as const;
/** A result that does not match its expected_output_schema: one repair pass, refuse it for good, or fail it for the sender to revise. */
export const FORMAT_MISMATCH_POLICIES = ['adapt', 'reject', 'escalate'] as const;
/** Work out of time: answer `partial` with what was gathered, or `timeout` for the sender to escalate. */
export const TIMEOUT_POLICIES = ['partial_result', 'escalate'] as const;

export const errorPolicySchema = z
  .strictObject({
    on_low_confidence: z.enum(LOW_CONFIDENCE_POLICIES).optional(),
    on_format_mismatch: z.enum(FORMAT_MISMATCH_POLICIES).optional(),
    on_timeout: z.enum(TIMEOUT_POLICIES).optional(),
  })
  .meta({ description: 'What the receiver does on low-confidence upstream work, a result that does not match its schema, or running out of time; the deployment default for what is left out.' });
export type ErrorPolicy = z.output<typeof errorPolicySchema>;
export type LowConfidencePolicy = (typeof LOW_CONFIDENCE_POLICIES)[number];
export type FormatMismatchPolicy = (typeof FORMAT_MISMATCH_POLICIES)[number];
export type TimeoutPolicy = (typeof TIMEOUT_POLICIES)[number];

/** An error policy with every field decided. */
export interface ResolvedErrorPolicy {
  readonly on_low_confidence: LowConfidencePolicy;
  readonly on_format_mismatch: FormatMismatchPolicy;
  readonly on_timeout: TimeoutPolicy;
}

/** Today's behaviour, and the default of a deployment that sets none: the cascade's bands, a mismatch refused for good, a timeout escalated. */
export const DEFAULT_ERROR_POLICY: ResolvedErrorPolicy = { on_low_confidence: 'escalate', on_format_mismatch: 'reject', on_timeout: 'escalate' };

/**
 * A child delegation's policy: its own fields over its parent's, so a policy set for a run or a
 * plan holds all the way down unless a delegation says otherwise. Pure.
 */
export function inheritErrorPolicy(own: ErrorPolicy | undefined, parent: ErrorPolicy | undefined): ErrorPolicy | undefined {
  if (parent === undefined) return own;
  return own === undefined ? parent : { ...parent, ...own };
}

/** A delegation's policy over the deployment's: each field the delegation sets wins. Pure. */
export function resolveErrorPolicy(given: ErrorPolicy | undefined, fallback: ResolvedErrorPolicy = DEFAULT_ERROR_POLICY): ResolvedErrorPolicy {
  return {
    on_low_confidence: given?.on_low_confidence ?? fallback.on_low_confidence,
    on_format_mismatch: given?.on_format_mismatch ?? fallback.on_format_mismatch,
    on_timeout: given?.on_timeout ?? fallback.on_timeout,
  };
}
