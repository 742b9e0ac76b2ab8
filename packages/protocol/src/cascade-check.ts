import { z } from 'zod';
import { messageIdSchema } from './identifiers.js';
import { tierNameSchema } from './tiers.js';

/** The four answers to upstream confidence, gravest last (docs/protocol.md#confidence-cascade). */
export const CASCADE_ACTION_NAMES = ['proceed', 'flag_uncertainty', 'needs_review', 'reject_and_escalate'] as const;
export const cascadeActionSchema = z.enum(CASCADE_ACTION_NAMES);

/**
 * What a receiving tier's cascade check decided about the upstream work it relied on
 * (docs/protocol.md#confidence-cascade). An outcome carries the gravest check of its chain, so a
 * flag or a rejection deep down stays visible at the root.
 */
export const cascadeCheckSchema = z
  .looseObject({
    action: cascadeActionSchema,
    confidence: z.number().min(0).max(1).meta({ description: 'The upstream confidence that decided it.' }),
    threshold: z.number().min(0).max(1).meta({ description: 'The bound met (or, for a rejection, missed).' }),
    upstream_id: messageIdSchema.meta({ description: 'The outcome message that was checked.' }),
    checked_by: tierNameSchema,
  })
  .meta({ description: 'Confidence cascade check: proceed, flag_uncertainty, needs_review or reject_and_escalate.' });
export type CascadeCheck = z.output<typeof cascadeCheckSchema>;
