import { z } from 'zod';
import { artifactSchema } from './artifact.js';
import { evidenceGradeSchema } from './evidence-grade.js';
import { messageIdSchema } from './identifiers.js';
import { confidenceSchema } from './payloads/outcome.js';

/**
 * The work of a subtask another one depends on, as the Dispatcher hands it over in the dependent
 * subtask's `task_data.upstream` (docs/protocol.md#subtask-dependencies): a handoff from one
 * specialist to another, through the tier that routes them.
 */
export const upstreamWorkSchema = z
  .looseObject({
    subtask_index: z.int().positive().meta({ description: 'The 1-based index, in the plan, of the subtask that did the work.' }),
    message_id: messageIdSchema.meta({ description: 'The outcome’s delegation: the work’s id in the audit trail.' }),
    task_type: z.string().min(1),
    specialist: z.string().meta({ description: 'Who did the work; empty when unknown.' }),
    summary: z.string().nullable().meta({ description: 'The sender’s own words on its work; null once tone isolation left them out.' }),
    confidence: confidenceSchema,
    evidence_grade: evidenceGradeSchema.nullable().default(null),
    artifacts: z.array(artifactSchema),
  })
  .meta({ description: 'Work a dependent subtask receives from a subtask it depends on.' });
export type UpstreamWork = z.output<typeof upstreamWorkSchema>;
export type UpstreamWorkInput = z.input<typeof upstreamWorkSchema>;

const upstreamListSchema = z.array(upstreamWorkSchema);

/**
 * The upstream work a delegation carries in `task_data.upstream`, in plan order; none when the
 * field is absent or not a list of upstream work (the sender's data, read leniently).
 */
export function upstreamOf(taskData: Readonly<Record<string, unknown>>): UpstreamWork[] {
  // Most work depends on nothing: no parse for it, on every hop.
  if (taskData.upstream === undefined) return [];
  const parsed = upstreamListSchema.safeParse(taskData.upstream);
  return parsed.success ? parsed.data : [];
}
