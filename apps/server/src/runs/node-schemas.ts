import { z } from '@hono/zod-openapi';
import { AUDIT_KINDS, nodeViewSchema, runTimelineSchema } from '@tierflow/runtime/admin';
import { auditEntrySchema } from './run-schemas.js';

// The runtime's own schemas' fields (they carry `.meta()` descriptions, not `.openapi()`): `tierflow inspect --json` prints the same object.
export const nodeSchema = z.object(nodeViewSchema.shape).openapi('NodeView', { description: 'One node of a run, as `tierflow inspect --json` prints it (docs/operations.md#inspecting-a-node).' });
export const timelineSchema = z.object(runTimelineSchema.shape).openapi('RunTimeline');

const id = z.string().min(1).max(200);

export const nodeParams = z.object({
  id: id.openapi({ param: { name: 'id', in: 'path' }, example: 'ec36a528-5b2f-4c7e-9a55-0b1c2d3e4f50' }),
  node: id.openapi({ param: { name: 'node', in: 'path' }, example: 'ec36a528-5b2f-4c7e-9a55-0b1c2d3e4f50.0-0.0-1' }),
});

const kindsOf = (text: string): string[] =>
  text
    .split(',')
    .map((kind) => kind.trim())
    .filter((kind) => kind !== '');

export const auditQuery = z.object({
  kind: z
    .string()
    .max(200)
    .refine((text) => kindsOf(text).every((kind) => (AUDIT_KINDS as readonly string[]).includes(kind)), { message: `kinds are ${AUDIT_KINDS.join(', ')}` })
    .transform((text) => kindsOf(text) as (typeof AUDIT_KINDS)[number][])
    .optional()
    .openapi({ param: { name: 'kind', in: 'query' }, description: `Only entries of these kinds, separated by commas: ${AUDIT_KINDS.join(', ')}.`, example: 'delegation,outcome' }),
  cursor: z
    .string()
    .regex(/^\d{1,20}(-\d{1,20})?$/, { message: 'must be a stream id, as next_cursor or prev_cursor gives it' })
    .optional()
    .openapi({ param: { name: 'cursor', in: 'query' }, description: 'Start after this entry: a `next_cursor` or `prev_cursor` of another page.' }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000)
    .optional()
    .openapi({ param: { name: 'limit', in: 'query' }, description: 'At most this many entries; all of them when left out.', example: 100 }),
});

export const auditPageSchema = z
  .object({
    entries: z.array(auditEntrySchema),
    total: z.number().openapi({ description: 'Entries of the kinds asked in the whole trail.' }),
    next_cursor: z.string().nullable().openapi({ description: 'The cursor of the next (newer) page; null on the last.' }),
    prev_cursor: z.string().nullable().openapi({ description: 'The cursor of the page before (older); null on the first.' }),
  })
  .openapi('AuditTrail');
