import { z } from 'zod';
import { artifactSchema } from '../artifact.js';
import { cascadeCheckSchema } from '../cascade-check.js';
import { evidenceGradeSchema } from '../evidence-grade.js';
import { handoffMetadataShape } from '../handoff-metadata.js';
import { questionSchema } from '../clarification.js';
import { blockerSchema } from '../blocker.js';
import { beadsRefSchema } from '../identifiers.js';
import { jsonObjectSchema, whenObject } from '../json.js';
import { isErrorStatus, outcomeStatusSchema } from '../statuses.js';

export const confidenceSchema = z.number().min(0, { message: 'must be between 0 and 1' }).max(1, { message: 'must be between 0 and 1' });

const ERROR_FIELDS = ['error_type', 'error_detail', 'recoverable'] as const;

/** What a lower tier reports to the tier above it (docs/protocol.md#outcome-payload). */
export const outcomePayloadSchema = z
  .looseObject({
    status: outcomeStatusSchema,
    summary: z.string().meta({ description: 'Natural language summary.' }),
    result_refs: z.array(beadsRefSchema).default([]).meta({ description: 'Beads keys for outputs.' }),
    confidence: confidenceSchema.meta({ description: 'Self-assessed confidence, 0.0 to 1.0.' }),
    reported_confidence: confidenceSchema.optional().meta({ description: "What the specialist reported, when the tier above calibrated `confidence` against the specialist's history." }),
    execution_time_ms: z.int().nonnegative().meta({ description: 'How long the work took.' }),
    resources_used: jsonObjectSchema.default({}).meta({ description: 'Specialists loaded, tokens consumed, …' }),
    surprise_flag: z.boolean().default(false).meta({ description: 'Outside expected bounds?' }),
    surprise_reason: z.string().nullable().default(null),
    error_type: z.string().nullable().default(null).meta({ description: 'Only with a status other than success.' }),
    error_detail: z.string().nullable().default(null).meta({ description: 'Only with a status other than success.' }),
    recoverable: z.boolean().nullable().default(null).meta({ description: 'Only with a status other than success.' }),
    artifacts: z.array(artifactSchema).default([]).meta({ description: 'Concrete outputs.' }),
    cascade_check: cascadeCheckSchema.optional().meta({ description: 'The gravest confidence cascade check behind this outcome, its own or one its children carried.' }),
    evidence_grade: evidenceGradeSchema.optional().meta({ description: 'How well the work is supported: the weakest grade behind it, once a tier aggregates (docs/protocol.md#evidence-grades).' }),
    ...handoffMetadataShape,
    questions: z.array(questionSchema).optional().meta({ description: 'With needs_clarification: every question behind it, each with the id of the outcome that asked.' }),
    blockers: z.array(blockerSchema).optional().meta({ description: 'With blocked: every external dependency behind it, each with the id of the outcome that reported it.' }),
  })
  .superRefine(
    (outcome, ctx) => {
      const parsed = outcomeStatusSchema.safeParse(outcome.status);
      if (parsed.success && parsed.data !== 'blocked' && Array.isArray(outcome.blockers) && outcome.blockers.length > 0) {
        ctx.addIssue({ code: 'custom', path: ['blockers'], message: `blockers belong to status "blocked", not "${parsed.data}"`, params: { rule: 'blockers_status' } });
      }
      if (!parsed.success || isErrorStatus(parsed.data)) return;
      for (const field of ERROR_FIELDS) {
        const value: unknown = outcome[field];
        if (value !== null && value !== undefined) {
          ctx.addIssue({
            code: 'custom',
            path: [field],
            message: `${field} must be null when status is "${parsed.data}"; error fields belong to error statuses only`,
            params: { rule: 'error_fields' },
          });
        }
      }
    },
    { when: whenObject },
  )
  .meta({ description: 'Outcome (up): a lower tier reports how the delegated work went.' });
export type OutcomePayload = z.output<typeof outcomePayloadSchema>;
export type OutcomePayloadInput = z.input<typeof outcomePayloadSchema>;
