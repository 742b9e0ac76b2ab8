import { describe, expect, it } from 'vitest';
import { functionTool } from './function-tool.js';
import { ProjectTools } from './project-tools.js';
import type { Tool, ToolSource } from './tool.js';

const fn = (name: string) => functionTool({ name, description: name, run: () => name });
const signal = new AbortController().signal;

/** An MCP source that says which patterns it was asked for. */
function served(names: readonly string[]): ToolSource & { asked: string[][] } {
  const asked: string[][] = [];
  const tools: Tool[] = names.map((name) => ({ name, description: '', parameters: {}, run: () => Promise.resolve({ content: '' }) }));
  return { asked, tools: (patterns) => (asked.push([...patterns]), Promise.resolve(tools)) };
}

describe('a project’s tools', () => {
  it('selects function tools by name or pattern, and asks the MCP servers only for a pattern starting mcp:', async () => {
    const mcp = served(['mcp:files/read']);
    const project = new ProjectTools([fn('read_notes'), fn('write_notes'), fn('search')], mcp);
    expect((await project.tools(['read_notes'], signal)).map((tool) => tool.name)).toEqual(['read_notes']);
    expect((await project.tools(['*_notes'], signal)).map((tool) => tool.name)).toEqual(['read_notes', 'write_notes']);
    expect((await project.tools(['search', 'mcp:files/*'], signal)).map((tool) => tool.name)).toEqual(['search', 'mcp:files/read']);
    expect(mcp.asked).toEqual([['search', 'mcp:files/*']]);
  });

  it.each([
    [['read_notes', 'mcp:files/read', 'mcp:*/x', 'any_*'], []],
    [['nope'], ["nope: no tool of that name in the project's tools"]],
    [['mcp:web/fetch'], ['mcp:web/fetch: no MCP server "web" in the project\'s mcp section']],
    [['mcp:files'], ['mcp:files: an MCP tool is named mcp:<server>/<tool>']],
  ])('finds what is wrong with %j', (patterns, problems) => {
    expect(ProjectTools.problems(patterns, ['read_notes'], ['files'])).toEqual(problems);
  });
});
