import { z } from 'zod';
import { objectiveFileSchema } from '../model/objective.js';

/** Where the committed schema lives, under the runtime package (`npm run schemas` writes it). */
export const OBJECTIVE_SCHEMA_FILE = 'objective.schema.json';

const CROSS_FIELD_NOTE =
  'Generated from the Tierflow zod schema of the objective file. Rules across fields (subtask dependencies, ' +
  'an expected_output_schema that compiles, the deployment’s size limits) are checked by `tierflow validate` and `tierflow enqueue`, not by this schema.';

/**
 * The objective file's JSON Schema (draft 2020-12), as a person writes the file: strict, like the
 * zod schema, so an editor flags a misspelt field; `$schema` is allowed so the file can name it.
 */
export function objectiveJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(objectiveFileSchema, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
  return { ...schema, title: 'Tierflow objective file', $comment: CROSS_FIELD_NOTE };
}

/** The exact text of the committed schema file. */
export function objectiveSchemaFileText(): string {
  return `${JSON.stringify(objectiveJsonSchema(), null, 2)}\n`;
}
