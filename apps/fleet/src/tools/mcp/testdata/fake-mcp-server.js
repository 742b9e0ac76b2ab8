// A small MCP server over stdio, for the tests of McpServers: run it as `node fake-mcp-server.js`.
// It is plain JavaScript beside the tests rather than TypeScript: a stdio server must be a process
// of its own, runnable without a build step, and tsc neither compiles nor copies a .js file here,
// so it never reaches dist/.
//
// With FAKE_MCP_LOG set to a file, it appends `started <pid>` when it starts, `slow <requestId>`
// when a `slow` call begins and `cancelled <requestId>` when one is cancelled, for a test to see.
import { appendFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const logFile = process.env.FAKE_MCP_LOG;
const note = (line) => {
  if (logFile) appendFileSync(logFile, `${line}\n`);
};

const server = new McpServer({ name: 'fake', version: '1.0.0' });
const text = (value) => ({ content: [{ type: 'text', text: String(value) }] });

server.registerTool('echo', { description: 'Returns its text', inputSchema: { text: z.string() } }, ({ text: value }) => text(value));

server.registerTool('add', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } }, ({ a, b }) => text(a + b));

server.registerTool('slow', { description: 'Waits ms milliseconds', inputSchema: { ms: z.number() } }, ({ ms }, extra) => {
  note(`slow ${extra.requestId}`);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(text(`waited ${ms} ms`)), ms);
    extra.signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        note(`cancelled ${extra.requestId}`);
        resolve(text('cancelled'));
      },
      { once: true },
    );
  });
});

server.registerTool('crash', { description: 'Exits the server at once' }, () => {
  process.exit(3);
});

server.registerTool('fail', { description: 'Reports a failure' }, () => ({ content: [{ type: 'text', text: 'it failed on purpose' }], isError: true }));

server.registerTool('mixed', { description: 'Returns content of several kinds' }, () => ({
  content: [
    { type: 'text', text: 'first' },
    { type: 'image', data: 'aGVsbG8=', mimeType: 'image/png' },
    { type: 'resource', resource: { uri: 'file:///notes.txt', text: 'the notes' } },
    { type: 'resource_link', uri: 'file:///big.bin', name: 'big' },
    { type: 'text', text: 'last' },
  ],
}));

// Registering a tool once connected sends notifications/tools/list_changed.
server.registerTool('grow', { description: 'Adds the tool `extra`' }, () => {
  server.registerTool('extra', { description: 'Added later' }, () => text('extra'));
  return text('grown');
});

process.stderr.write('fake MCP server: a line on stderr\n');
await server.connect(new StdioServerTransport());
note(`started ${process.pid}`);
