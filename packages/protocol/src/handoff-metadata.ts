import { z } from 'zod';

/** The shapes work may be handed over in (docs/protocol.md#handoff-metadata). */
export const OUTPUT_FORMATS = ['markdown', 'json', 'csv', 'structured'] as const;

export const outputFormatSchema = z.enum(OUTPUT_FORMATS).meta({ description: 'The shape of the work handed over.' });
export type OutputFormat = z.infer<typeof outputFormatSchema>;

/** The most gaps or assumptions an aggregate carries: enough to read, not a tree's worth of repeats. */
export const MAX_HANDOFF_NOTES = 50;

const isoDate = z.iso.date();
const isoDateTime = z.iso.datetime({ offset: true });

/**
 * An ISO 8601 date (`2026-02-28`) or date-time with an offset (`2026-02-28T10:00:00Z`). A string
 * with a check rather than a union: the workers' fast parse (fast-parse.ts) walks strings, not unions.
 */
export const dataFreshnessSchema = z
  .string()
  .refine((value) => isoDate.safeParse(value).success || isoDateTime.safeParse(value).success, { message: 'must be an ISO 8601 date (2026-02-28) or date-time (2026-02-28T10:00:00Z)' })
  .meta({ description: 'How recent the data behind the work is: an ISO 8601 date or date-time.' });

const notesSchema = z.array(z.string().min(1));

/**
 * What an outcome may say about the work behind it, beside its confidence and evidence grade
 * (docs/protocol.md#handoff-metadata). Every field optional, so older messages still validate.
 */
export const handoffMetadataShape = {
  format: outputFormatSchema.optional(),
  sources_count: z.int().nonnegative().optional().meta({ description: 'How many sources the work rests on; summed over the children once a tier aggregates.' }),
  data_freshness: dataFreshnessSchema.optional(),
  gaps: notesSchema.optional().meta({ description: 'What the work is known to miss; unioned over the children once a tier aggregates.' }),
  assumptions: notesSchema.optional().meta({ description: 'What the work assumed; unioned over the children once a tier aggregates.' }),
} as const;

export const handoffMetadataSchema = z.object(handoffMetadataShape);
export type HandoffMetadata = z.output<typeof handoffMetadataSchema>;

/**
 * Constraints a sender puts on one handoff (docs/protocol.md#handoff-metadata): they override the
 * deployment's cascade check and tone isolation for this delegation and its answer, and bound the
 * prompt a model-backed specialist may build for it.
 */
export const handoffConstraintsSchema = z
  .looseObject({
    tone_isolation: z.boolean().optional().meta({ description: "Isolate upstream work's tone for this delegation (true) or not (false), whatever the deployment does." }),
    cascade_check: z.boolean().optional().meta({ description: "Check this delegation's answer against its confidence (true, with the deployment's or the default bounds) or not (false)." }),
    max_context_tokens: z.int().positive().optional().meta({ description: 'The most tokens the prompt built for this work may take; a larger one fails before the model is called.' }),
  })
  .meta({ description: 'Per-handoff constraints over the deployment-wide settings.' });
export type HandoffConstraints = z.output<typeof handoffConstraintsSchema>;

/** The child's constraints over its parent's, field by field; undefined when neither sets any. Pure. */
export function inheritHandoffConstraints(own: HandoffConstraints | undefined, parent: HandoffConstraints | undefined): HandoffConstraints | undefined {
  if (parent === undefined) return own;
  if (own === undefined) return parent;
  return { ...parent, ...own };
}
