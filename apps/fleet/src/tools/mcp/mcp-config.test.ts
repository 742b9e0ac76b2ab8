import { describe, expect, it } from 'vitest';
import { mcpSectionSchema, mcpServerSchema } from './mcp-config.js';

describe('mcpServerSchema', () => {
  it.each([
    { command: 'npx' },
    { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/data'], env: { DEBUG: '1' }, cwd: '/srv' },
    { url: 'http://localhost:3000/mcp' },
    { url: 'https://mcp.example.com/mcp', tokenEnv: 'EXAMPLE_TOKEN' },
    { url: 'https://mcp.example.com/mcp', tokenEnv: '_x9' },
  ])('accepts %j', (server) => {
    expect(mcpServerSchema.parse(server)).toEqual(server);
  });

  it.each([
    ['neither command nor url', {}],
    ['both command and url', { command: 'x', url: 'http://localhost/mcp' }],
    ['an unknown key', { command: 'x', shell: true }],
    ['an empty command', { command: '' }],
    ['args that are not strings', { command: 'x', args: [1] }],
    ['env values that are not strings', { command: 'x', env: { A: 1 } }],
    ['a URL that is not http(s)', { url: 'ftp://example.com/mcp' }],
    ['a URL that is not one', { url: 'not a url' }],
    ['tokenEnv that is not a variable name', { url: 'http://localhost/mcp', tokenEnv: '1TOKEN' }],
    ['tokenEnv with a dash', { url: 'http://localhost/mcp', tokenEnv: 'MY-TOKEN' }],
    ['tokenEnv beside a command', { command: 'x', tokenEnv: 'TOKEN' }],
  ])('refuses %s', (_what, server) => {
    expect(mcpServerSchema.safeParse(server).success).toBe(false);
  });
});

describe('mcpSectionSchema', () => {
  it('accepts servers by name', () => {
    const section = { files: { command: 'mcp-files' }, 'web_search-2': { url: 'https://example.com/mcp' }, ['a'.repeat(64)]: { command: 'x' } };
    expect(mcpSectionSchema.parse(section)).toEqual(section);
  });

  it.each(['', '-files', '_files', 'my files', 'a/b', 'mcp:x', 'a'.repeat(65)])('refuses the server name %j', (name) => {
    expect(mcpSectionSchema.safeParse({ [name]: { command: 'x' } }).success).toBe(false);
  });
});
