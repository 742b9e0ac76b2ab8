import { TierflowError } from '@tierflow/protocol';
import { z } from 'zod';
import type { Tool, ToolCallContext, ToolResult } from './tool.js';

/** A function tool's name: what a model's API takes as a function's name. */
export const toolNameSchema = z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, { message: 'must be 1 to 64 letters, digits, _ or -' });

/** A tool written as a function, in the project file or in code. */
export interface FunctionToolDefinition {
  /** 1 to 64 letters, digits, `_` or `-`: the name boundaries (`tool:<name>`) and `tools` selections use. */
  readonly name: string;
  /** What the tool does, for the model. */
  readonly description: string;
  /**
   * The arguments: a zod schema (the arguments are checked against it before the function runs,
   * and a mismatch is told to the model), or a JSON Schema object (shown to the model as it is).
   * An object taking nothing when left out.
   */
  readonly parameters?: z.ZodType | Readonly<Record<string, unknown>>;
  /** A person approves each call before it runs (docs/extending.md#approving-tool-calls). */
  readonly approve?: boolean;
  /** Runs a call: a string is handed to the model as it is, anything else as JSON. */
  readonly run: (args: never, context: ToolCallContext) => unknown;
}

/**
 * A tool from a function.
 *
 * ```ts
 * const lookUp = functionTool({
 *   name: 'look_up',
 *   description: 'The definition of a word',
 *   parameters: z.object({ word: z.string() }),
 *   run: ({ word }: { word: string }) => dictionary[word] ?? 'not found',
 * });
 * ```
 * @throws TierflowError (`invalid_tool`) for a name a model's API would refuse, or a missing function.
 */
export function functionTool(definition: FunctionToolDefinition): Tool {
  const name = toolNameSchema.safeParse(definition.name);
  if (!name.success) throw TierflowError.permanent(`tool ${JSON.stringify(definition.name)}: its name ${name.error.issues[0]?.message ?? 'is invalid'}`, { code: 'invalid_tool' });
  if (typeof definition.run !== 'function') throw TierflowError.permanent(`tool ${definition.name}: run must be a function`, { code: 'invalid_tool' });
  const schema = definition.parameters instanceof z.ZodType ? definition.parameters : null;
  const parameters = schema
    ? (z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>)
    : ((definition.parameters as Readonly<Record<string, unknown>> | undefined) ?? { type: 'object', properties: {} });
  const run = definition.run as (args: unknown, context: ToolCallContext) => unknown;
  return {
    name: definition.name,
    description: definition.description,
    parameters,
    ...(definition.approve ? { approve: true } : {}),
    run: async (args, context): Promise<ToolResult> => {
      let value: unknown = args;
      if (schema) {
        const parsed = schema.safeParse(args);
        if (!parsed.success) return { content: `invalid arguments: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(arguments)'}: ${issue.message}`).join('; ')}`, isError: true };
        value = parsed.data;
      }
      const result = await run(value, context);
      return { content: typeof result === 'string' ? result : (JSON.stringify(result) ?? 'null') };
    },
  };
}
