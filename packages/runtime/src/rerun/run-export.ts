import { z } from 'zod';
import { rootObjectiveSchema } from '../model/objective.js';
import { recordEntrySchema } from '../recording/record-entry.js';

/**
 * A run as `tierflow runs export` writes it and `tierflow rerun --from-file` reads it
 * (docs/operations.md#rerun-fork-and-replay): enough to rerun, fork or replay it on another
 * deployment, with no model server for a strict replay.
 * - `format`, `version`: what this file is; a reader refuses a version it does not know;
 * - `root`: the run's root record (its id, when it was submitted, the objective file as submitted);
 * - `outcomes`: each node's outcome message exactly as its job returned it, by node id (the root's
 *   included), for the nodes whose jobs were still retained;
 * - `entries`: the run's recording, in the order it was written (recording/record-entry.ts).
 */
export const RUN_EXPORT_FORMAT = 'tierflow-run';
export const RUN_EXPORT_VERSION = 1;

export const runExportSchema = z.strictObject({
  format: z.literal(RUN_EXPORT_FORMAT),
  version: z.literal(RUN_EXPORT_VERSION),
  exported_at: z.iso.datetime({ offset: true }),
  root: rootObjectiveSchema,
  outcomes: z.record(z.string().min(1), z.unknown()),
  entries: z.array(recordEntrySchema),
});
export type RunExport = z.output<typeof runExportSchema>;

/** Only the version, read first: a file of a later version is refused as such, not as a list of schema errors. */
const versionOnly = z.object({ format: z.literal(RUN_EXPORT_FORMAT), version: z.number() });

/**
 * An exported run read back (the file's JSON, parsed), or why it is not one. Pure; never throws.
 */
export function readRunExport(value: unknown): { ok: true; run: RunExport } | { ok: false; problem: string } {
  const head = versionOnly.safeParse(value);
  if (!head.success) return { ok: false, problem: `not an exported run (expected "format": "${RUN_EXPORT_FORMAT}" and a "version")` };
  if (head.data.version !== RUN_EXPORT_VERSION) return { ok: false, problem: `an exported run of version ${head.data.version}; this Tierflow reads version ${RUN_EXPORT_VERSION}` };
  const parsed = runExportSchema.safeParse(value);
  if (!parsed.success) return { ok: false, problem: `not a valid exported run: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(file)'}: ${issue.message}`).join('; ')}` };
  return { ok: true, run: parsed.data };
}
