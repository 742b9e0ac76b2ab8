import { z } from '@hono/zod-openapi';
import { historyReportSchema } from '@tierflow/runtime/admin';

export const statsQuery = z.object({
  task_type: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .openapi({ param: { name: 'task_type', in: 'query' }, description: 'Only this task type; every task type with history when left out.', example: 'code_generation' }),
});

// The runtime's own schema's fields (it carries `.meta()` descriptions, not `.openapi()`): `tierflow stats --json` prints the same object.
export const statsSchema = z.object(historyReportSchema.shape).openapi('HistoryReport', {
  description: 'What the Monitor learned from outcomes, per task type and specialist, as `tierflow stats --json` prints it (docs/operations.md#specialists-and-their-history).',
});
