import { describe, expect, it } from 'vitest';
import { wildcardMatches } from './wildcard.js';

describe('wildcardMatches', () => {
  it.each([
    ['fleet:python-*', 'fleet:python-lora', true],
    ['fleet:python-*', 'fleet:sql-lora', false],
    ['search', 'search', true],
    ['search', 'searches', false],
    ['search', 'research', false],
    ['mcp:files/read', 'mcp:files/read', true],
    ['mcp:files/*', 'mcp:files/read', true],
    ['mcp:files/*', 'mcp:files/', true],
    ['mcp:files/*', 'mcp:filesx/read', false],
    ['mcp:files/*', 'mcp:other/read', false],
    ['mcp:*/read_*', 'mcp:files/read_file', true],
    ['mcp:*/read_*', 'mcp:files/write_file', false],
    ['mcp:*', 'mcp:files/a/b', true],
    ['*', 'anything/at:all', true],
    ['*', '', true],
    ['mcp:fake/ec*', 'mcp:fake/echo', true],
    ['mcp:fake/ec*', 'mcp:fake/add', false],
    ['*_file', 'mcp:files/read_file', true],
    ['a**b', 'ab', true],
    ['a*b*c', 'axxbyyc', true],
    ['a*b*c', 'axxbyy', false],
    // Regular-expression characters are literal.
    ['a.b', 'a.b', true],
    ['a.b', 'axb', false],
    ['a+b', 'a+b', true],
    ['a+b', 'aab', false],
    ['(x)|[y]', '(x)|[y]', true],
    ['(x)|[y]', 'x', false],
    ['$^\\', '$^\\', true],
    ['x?', 'x', false],
  ])('%j against %j is %s', (pattern, name, expected) => {
    expect(wildcardMatches(pattern, name)).toBe(expected);
  });
});
