import { ProjectTools } from '@tierflow/fleet';
import type { ProjectConfig } from './config-schema.js';

/**
 * What is wrong with the LLM specialists' `tools` selections of a file, one line each, named by
 * field: a name no tool of the file has, an MCP server the file does not declare. What the
 * workers would refuse at their start, for `tierflow config` to say first. Pure.
 */
export function toolSelectionProblems(config: ProjectConfig): string[] {
  const functions = config.tools.map((tool) => tool.name);
  const servers = Object.keys(config.mcp ?? {});
  return config.specialists.flatMap((entry, i) =>
    'kind' in entry && entry.kind === 'llm' ? ProjectTools.problems(entry.tools ?? [], functions, servers).map((problem) => `specialists[${i}].tools: ${problem}`) : [],
  );
}
