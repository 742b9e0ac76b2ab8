import { describe, expect, it } from 'vitest';
import { toolPatternMayMatchPrefix } from './tool-pattern.js';

describe('toolPatternMayMatchPrefix', () => {
  it.each([
    ['mcp:files/*', 'mcp:files/', true],
    ['mcp:files/read', 'mcp:files/', true],
    ['mcp:files/read', 'mcp:other/', false],
    ['mcp:files/*', 'mcp:filesx/', false],
    ['mcp:*/read_*', 'mcp:files/', true],
    ['mcp:*', 'mcp:files/', true],
    ['mcp:fi*', 'mcp:files/', true],
    ['mcp:fi*', 'mcp:other/', false],
    ['*', 'mcp:files/', true],
    ['*/read', 'mcp:files/', true],
    ['mcp:f*s/x', 'mcp:files/', true],
    ['mcp:f*s/x', 'mcp:fake/', true],
    ['mcp:f*z/x', 'mcp:files/', true],
    ['mcp:files', 'mcp:files/', false],
    ['search', 'mcp:files/', false],
  ])('%j against the prefix %j is %s', (pattern, prefix, expected) => {
    expect(toolPatternMayMatchPrefix(pattern, prefix)).toBe(expected);
  });
});
