import { compileOutputSchema } from '@tierflow/core';
import { jsonObjectSchema } from '@tierflow/protocol';

/**
 * An expected_output_schema in an objective file: a JSON object that compiles as a JSON Schema,
 * so a bad one is refused when the file is read, not after a specialist has run.
 */
export const outputSchemaField = jsonObjectSchema.superRefine((schema, ctx) => {
  const compiled = compileOutputSchema(schema);
  if (!compiled.ok) ctx.addIssue({ code: 'custom', message: `not a usable JSON Schema: ${compiled.reason}` });
});
