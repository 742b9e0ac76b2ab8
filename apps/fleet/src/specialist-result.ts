import { confidenceSchema, evidenceGradeSchema, fastSafeParse, handoffMetadataShape, jsonObjectSchema, TierflowError } from '@tierflow/protocol';
import { z } from 'zod';
import { SPECIALIST_STATUSES, type SpecialistResult } from './specialist.js';

/** A {@link SpecialistResult} as checked when it comes back from user code. */
export const specialistResultSchema = z.object({
  status: z.enum(SPECIALIST_STATUSES).default('success'),
  summary: z.string(),
  confidence: confidenceSchema,
  evidence_grade: evidenceGradeSchema.optional(),
  ...handoffMetadataShape,
  artifacts: z.array(z.object({ artifact_type: z.string().trim().min(1), content: z.string(), metadata: jsonObjectSchema.optional() })).default([]),
  error_type: z.string().optional(),
  error_detail: z.string().optional(),
  recoverable: z.boolean().optional(),
  resources_used: jsonObjectSchema.optional(),
});
export type CheckedSpecialistResult = z.output<typeof specialistResultSchema>;

// The schema and the public interface describe the same thing; this fails to compile if they drift.
type Holds<T extends true> = T;
type _SchemaMatchesInterface = Holds<CheckedSpecialistResult extends SpecialistResult ? true : false>;

/**
 * Checks what a specialist returned and fills in the defaults.
 *
 * @throws TierflowError (permanent, code `invalid_specialist_result`) naming the specialist and each bad field.
 */
export function checkSpecialistResult(specialist: string, value: unknown): CheckedSpecialistResult {
  const parsed = fastSafeParse(specialistResultSchema, value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'result'}: ${issue.message}`);
  throw TierflowError.permanent(`specialist "${specialist}" returned an invalid result: ${problems.join('; ')}`, {
    code: 'invalid_specialist_result',
  });
}
