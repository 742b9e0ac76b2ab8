import type { Tool } from './tool.js';

/** What a model's API takes as a function's name. */
const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * The name each tool is offered to the model under: a function tool's own, an MCP tool's
 * `mcp:<server>/<tool>` as `<server>__<tool>` (a model's API takes only letters, digits, `_` and
 * `-`), cut to 64 characters; a name taken twice gets `_2`, `_3`… Pure.
 */
export function functionNames(tools: readonly Tool[]): Map<string, Tool> {
  const byName = new Map<string, Tool>();
  for (const tool of tools) {
    const base = FUNCTION_NAME.test(tool.name)
      ? tool.name
      : tool.name
          .replace(/^mcp:/, '')
          .replace(/\//g, '__')
          .replace(/[^a-zA-Z0-9_-]/g, '_')
          .slice(0, 64) || 'tool';
    let name = base;
    for (let n = 2; byName.has(name); n++) name = `${base.slice(0, 64 - String(n).length - 1)}_${n}`;
    byName.set(name, tool);
  }
  return byName;
}
