import { z } from 'zod';

/**
 * A message id (docs/protocol.md#identifiers-and-timestamps). UUIDs and ids such as `msg-001`
 * both qualify: any short token of letters, digits, `.`, `_` and `-` is accepted. Ids become
 * BullMQ job ids, which may not contain `:` and may not be integers, so an all-digit id is
 * refused.
 */
export const messageIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, {
    message: 'must be 1 to 128 characters of letters, digits, ".", "_" or "-", starting with a letter or digit',
  })
  .refine((id) => !/^\d+$/.test(id), { message: 'must not be all digits (ids double as queue job ids)', params: { rule: 'invalid_format' } })
  .meta({ description: 'Message id: a UUID or another token of [A-Za-z0-9._-], not all digits.' });
export type MessageId = z.infer<typeof messageIdSchema>;

/** A reference to a value in the Beads shared state, e.g. `beads:execution/outputs/msg-002`. */
export const beadsRefSchema = z
  .string()
  .regex(/^beads:\S+$/, { message: 'must be a Beads key such as "beads:task/current-objective"' })
  .meta({ description: 'A Beads key: "beads:" followed by a namespace path.' });
export type BeadsRef = z.infer<typeof beadsRefSchema>;

/** An ISO 8601 date-time with a time zone (`Z` or an offset); a local time is ambiguous and refused. */
export const timestampSchema = z.iso
  .datetime({ offset: true, message: 'must be an ISO 8601 date-time with a time zone, e.g. 2025-01-15T10:30:00Z' })
  .meta({ description: 'ISO 8601 date-time with Z or an offset.' });
