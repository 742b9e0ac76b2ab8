import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { findFreePort } from '@tierflow/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SpecialistUnavailableError } from '../../specialist.js';
import { McpServers } from './mcp-servers.js';

const TOKEN = 'secret-token-for-the-test';
let http: Server;
let url: string;
const authorizations: (string | undefined)[] = [];
const opened: McpServers[] = [];

// A stateless streamable-HTTP MCP server behind a bearer-token check: a fresh McpServer per request.
beforeAll(async () => {
  http = createServer((req, res) => {
    authorizations.push(req.headers.authorization);
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    const server = new McpServer({ name: 'http-fake', version: '1.0.0' });
    server.registerTool('shout', { description: 'Upper-cases its text', inputSchema: { text: z.string() } }, ({ text }) => ({ content: [{ type: 'text', text: text.toUpperCase() }] }));
    const transport = new StreamableHTTPServerTransport({}); // no sessionIdGenerator: stateless;
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    server
      .connect(transport)
      .then(() => transport.handleRequest(req, res))
      .catch(() => res.writeHead(500).end());
  });
  // Port 0: the OS picks a free port, with no window for another process to take it.
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});
afterAll(async () => {
  http.closeAllConnections();
  await new Promise((resolve) => http.close(resolve));
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((servers) => servers.close()));
});

function servers(env: NodeJS.ProcessEnv, tokenEnv = 'WEB_TOKEN'): McpServers {
  const result = new McpServers({ servers: { web: { url, tokenEnv } }, env, log: { info: () => undefined, warn: () => undefined } });
  opened.push(result);
  return result;
}

describe('McpServers over streamable HTTP', () => {
  it('calls a tool with the bearer token from tokenEnv', async () => {
    const tools = await servers({ WEB_TOKEN: TOKEN }).tools(['mcp:web/*'], new AbortController().signal);
    expect(tools.map((tool) => tool.name)).toEqual(['mcp:web/shout']);
    await expect(tools[0]!.run({ text: 'hi' }, { signal: new AbortController().signal, callId: 'call_1' })).resolves.toEqual({ content: 'HI' });
    expect(authorizations.at(-1)).toBe(`Bearer ${TOKEN}`);
  });

  it('is unavailable when tokenEnv is not set, without asking the server', async () => {
    const before = authorizations.length;
    const listing = servers({}).tools(['mcp:web/*'], new AbortController().signal);
    await expect(listing).rejects.toBeInstanceOf(SpecialistUnavailableError);
    await expect(listing).rejects.toThrow('MCP server "web" cannot start: the environment variable WEB_TOKEN (tokenEnv) is not set');
    expect(authorizations.length).toBe(before);
  });

  it('is unavailable when the server refuses the token', async () => {
    await expect(servers({ WEB_TOKEN: 'wrong' }).tools(['mcp:web/*'], new AbortController().signal)).rejects.toThrow(/^MCP server "web" cannot start: .*\(HTTP 401\)$/);
  });

  it('is unavailable when nothing listens at the URL', async () => {
    const port = await findFreePort();
    const refused = new McpServers({ servers: { gone: { url: `http://127.0.0.1:${port}/mcp` } }, env: {}, log: { info: () => undefined, warn: () => undefined } });
    opened.push(refused);
    await expect(refused.tools(['mcp:gone/*'], new AbortController().signal)).rejects.toThrow(/^MCP server "gone" cannot start: .*ECONNREFUSED/);
  });
});
