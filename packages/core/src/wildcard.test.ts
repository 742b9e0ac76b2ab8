import { describe, expect, it } from 'vitest';
import { wildcardMatches } from './wildcard.js';

describe('wildcardMatches', () => {
  it.each([
    ['fleet:python-*', 'fleet:python-lora', true],
    ['fleet:python-*', 'fleet:sql-lora', false],
    ['mcp:files/*', 'mcp:files/read_file', true],
    ['mcp:*', 'mcp:files/read_file', true],
    ['*', '', true],
    ['a.b', 'axb', false],
    ['(x)+', '(x)+', true],
    ['tool:*_notes', 'tool:read_notes', true],
    ['exact', 'exactly', false],
  ])('%j matches %j: %s', (pattern, name, expected) => {
    expect(wildcardMatches(pattern, name)).toBe(expected);
  });
});
