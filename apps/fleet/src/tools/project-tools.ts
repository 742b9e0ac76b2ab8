import { toolPatternMatches } from './tool-pattern.js';
import type { Tool, ToolSource } from './tool.js';

/**
 * A project's tools, as its LLM specialists select them by name or pattern: its function tools,
 * and the tools its MCP servers serve (`mcp:<server>/<tool>`), asked for only when a pattern
 * starting `mcp:` may name one.
 */
export class ProjectTools implements ToolSource {
  constructor(
    private readonly functions: readonly Tool[],
    private readonly mcp: ToolSource | null,
  ) {}

  async tools(patterns: readonly string[], signal: AbortSignal): Promise<readonly Tool[]> {
    const own = this.functions.filter((tool) => patterns.some((pattern) => toolPatternMatches(pattern, tool.name)));
    // An MCP tool is selected by a pattern that starts `mcp:`, so that `*` alone never starts every server.
    const served = this.mcp && patterns.some((pattern) => pattern.startsWith('mcp:')) ? await this.mcp.tools(patterns, signal) : [];
    return [...own, ...served];
  }

  /**
   * What is wrong with a specialist's `tools` selection, one line a pattern: a plain name that no
   * function tool has, or an MCP server the project does not declare. Patterns with `*` may match
   * nothing yet (a server's tools are known once it runs). Pure.
   */
  static problems(patterns: readonly string[], functions: readonly string[], servers: readonly string[]): string[] {
    return patterns.flatMap((pattern) => {
      if (pattern.startsWith('mcp:')) {
        const server = /^mcp:([^/*]+)\//.exec(pattern)?.[1];
        if (server === undefined) return pattern.includes('*') ? [] : [`${pattern}: an MCP tool is named mcp:<server>/<tool>`];
        return servers.includes(server) ? [] : [`${pattern}: no MCP server ${JSON.stringify(server)} in the project's mcp section`];
      }
      if (pattern.includes('*') || functions.includes(pattern)) return [];
      return [`${pattern}: no tool of that name in the project's tools`];
    });
  }
}
