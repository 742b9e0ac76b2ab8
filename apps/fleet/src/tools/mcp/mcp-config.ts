import { z } from 'zod';

/** An MCP server the Fleet starts as a child process and speaks to over its stdin and stdout. */
export const mcpStdioServerSchema = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  /** Added to the few variables the SDK passes on (PATH, HOME, …): the Fleet's own environment, secrets included, is not handed over. */
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().min(1).optional(),
});

/** An MCP server reached over streamable HTTP. */
export const mcpHttpServerSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }),
  /** The environment variable holding a bearer token; the token itself never goes in the project file. */
  tokenEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')
    .optional(),
});

/** One MCP server as the project file declares it: a `command` to run, or a `url` to reach (exactly one). */
export const mcpServerSchema = z.union([mcpStdioServerSchema, mcpHttpServerSchema], {
  error: 'an MCP server is either { command, args?, env?, cwd? } or { url, tokenEnv? }, with no other keys',
});

/** A server's name, as tools see it (`mcp:<server>/<tool>`). */
export const mcpServerNameSchema = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/i, 'must be 1 to 64 letters, digits, _ or -, starting with a letter or digit');

/** The project file's `mcp` section: its servers by name. */
export const mcpSectionSchema = z.record(mcpServerNameSchema, mcpServerSchema);

export type McpStdioServerConfig = z.output<typeof mcpStdioServerSchema>;
export type McpHttpServerConfig = z.output<typeof mcpHttpServerSchema>;
export type McpServerConfig = z.output<typeof mcpServerSchema>;
export type McpSection = z.output<typeof mcpSectionSchema>;
