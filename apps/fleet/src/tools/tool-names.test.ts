import { describe, expect, it } from 'vitest';
import type { Tool } from './tool.js';
import { functionNames } from './tool-names.js';

const tool = (name: string): Tool => ({ name, description: '', parameters: { type: 'object' }, run: () => Promise.resolve({ content: '' }) });

describe('the names tools are offered to a model under', () => {
  it.each([
    ['read_notes', 'read_notes'],
    ['mcp:files/read_file', 'files__read_file'],
    ['mcp:my.server/do it', 'my_server__do_it'],
    [`mcp:s/${'x'.repeat(80)}`, `s__${'x'.repeat(61)}`],
  ])('%s → %s', (name, offered) => {
    expect([...functionNames([tool(name)]).keys()]).toEqual([offered]);
  });

  it('gives a name taken twice a number', () => {
    expect([...functionNames([tool('mcp:a/b'), tool('a__b'), tool('mcp:a.b')]).keys()]).toEqual(['a__b', 'a__b_2', 'a_b']);
  });
});
