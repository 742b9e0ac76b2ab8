import { z } from 'zod';
import { messageIdSchema } from '../identifiers.js';

/** A request to abort in-flight work (docs/protocol.md#cancellation-payload). */
export const cancellationPayloadSchema = z
  .looseObject({
    target_message_id: messageIdSchema.meta({ description: 'The delegation message to cancel.' }),
    reason: z.string().min(1).meta({ description: 'Why the work is cancelled.' }),
    cascade: z.boolean().default(true).meta({ description: 'Cancel the downstream delegations too; true when absent.' }),
    error_type: z.string().min(1).max(64).optional().meta({ description: 'The error_type the cancelled work answers with, e.g. budget_exceeded; cancelled when absent.' }),
  })
  .meta({ description: 'Cancellation: a higher tier aborts in-flight work.' });
export type CancellationPayload = z.output<typeof cancellationPayloadSchema>;
export type CancellationPayloadInput = z.input<typeof cancellationPayloadSchema>;
