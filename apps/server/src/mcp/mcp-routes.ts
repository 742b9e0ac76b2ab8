import type { OpenAPIHono } from '@hono/zod-openapi';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { TierflowClient } from '@tierflow/runtime';
import { bodyLimit } from 'hono/body-limit';
import { tierflowMcpServer } from './mcp-server.js';

/** Where `tierflow serve` answers MCP clients (streamable HTTP). */
export const MCP_PATH = '/mcp';

export interface McpRouteDeps {
  readonly client: TierflowClient;
  readonly jaegerUrl: string;
  /** The largest request: an objective's worth (enqueue_objective carries one), with room for JSON-RPC around it. */
  readonly maxBodyBytes: number;
}

/** JSON-RPC's refusal of a request that is not one this endpoint takes, as MCP clients read refusals. */
const refusal = (code: number, message: string) => ({ jsonrpc: '2.0', id: null, error: { code, message } });

/**
 * The MCP endpoint, stateless: each POST gets a server and a transport of its own, answers in JSON,
 * and both are dropped once it has. Nothing is kept between requests (no session id), so any number
 * of `tierflow serve` behind a load balancer answer the same client, as they do the API. Without a
 * session there is no stream to open or session to end: GET and DELETE answer 405, which clients
 * read as "not offered".
 */
export function mcpRoutes(app: OpenAPIHono, deps: McpRouteDeps): void {
  const { maxBodyBytes } = deps;
  const limit = bodyLimit({ maxSize: maxBodyBytes, onError: (c) => c.json(refusal(-32600, `the request is over ${maxBodyBytes} bytes`), 413) });
  app.post(MCP_PATH, limit, async (c) => {
    const server = tierflowMcpServer(deps.client, { jaegerUrl: deps.jaegerUrl });
    // No sessionIdGenerator: stateless mode.
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true, maxRequestBodySize: maxBodyBytes });
    try {
      await server.connect(transport);
      // In JSON mode the response is whole when this resolves: nothing is left to send after it.
      return await transport.handleRequest(c.req.raw);
    } finally {
      await server.close();
    }
  });
  app.on(['GET', 'DELETE'], MCP_PATH, (c) => c.json(refusal(-32000, 'method not allowed: this endpoint is stateless, POST JSON-RPC to it'), 405, { Allow: 'POST' }));
}
