import { resolveRuntimeOptions } from '@tierflow/runtime';
import { uniquePrefix } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveServerOptions } from '../config/server-options.js';
import { createServer, type TierflowServer } from '../server.js';

// /mcp inside `tierflow serve`'s app, against a private Redis: the token, the checks in front, the
// body limit, and a tool called over plain JSON-RPC as a streamable-HTTP client sends it.
const db = usePrivateRedis();
const TOKEN = 'a-token-of-sixteen-chars-or-more';
const MAX_OBJECTIVE = 8 * 1024;
let server: TierflowServer;

beforeAll(() => {
  const runtime = resolveRuntimeOptions({ redisUrl: db.server.url, prefix: uniquePrefix('mcp-http'), limits: { maxObjectiveBytes: MAX_OBJECTIVE } });
  server = createServer(runtime, resolveServerOptions({ token: TOKEN }), { info: () => undefined, warn: () => undefined });
});

afterAll(async () => {
  await server?.close();
});

const rpc = (method: string, params: Record<string, unknown>, headers: Record<string, string> = {}) =>
  server.app.request('/mcp', {
    method: 'POST',
    headers: { host: '127.0.0.1', 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${TOKEN}`, ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
const enqueue = (objective: string, headers: Record<string, string> = {}) => rpc('tools/call', { name: 'enqueue_objective', arguments: { objective } }, headers);

describe('/mcp', () => {
  it('needs the token', async () => {
    const response = await rpc('tools/list', {}, { authorization: 'Bearer not-the-token-at-all' });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('Bearer');
  });

  it('answers a tool call with the token, in JSON: no session is kept', async () => {
    const response = await enqueue('say hello');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(response.headers.get('mcp-session-id')).toBeNull();
    const answer = (await response.json()) as { result: { structuredContent: { root_id: string } } };
    expect(await server.client.tree(answer.result.structuredContent.root_id)).toMatchObject({ status: 'queued' });
  });

  it('takes an objective up to the deployment’s limit, and refuses a body past it, plus room, with 413', async () => {
    const fits = await enqueue('x'.repeat(MAX_OBJECTIVE - 200));
    expect(((await fits.json()) as { result: { isError?: boolean } }).result.isError).toBeUndefined();
    // Within the body's room, past the objective's limit: the client's own check refuses it, as a tool error.
    const tooLong = (await (await enqueue('x'.repeat(MAX_OBJECTIVE + 100))).json()) as { result: { isError: boolean; content: { text: string }[] } };
    expect(tooLong.result).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/^input_too_large: /) as unknown }] });
    expect((await enqueue('x'.repeat(MAX_OBJECTIVE + 70 * 1024))).status).toBe(413);
  });

  it('refuses another site’s page, and offers no stream or session (GET and DELETE: 405)', async () => {
    expect((await enqueue('from a page', { origin: 'https://evil.example' })).status).toBe(403);
    // A DELETE without a JSON body is marked, as the cross-site check asks of any script (an SDK sends one only to end a session, which is never given).
    for (const method of ['GET', 'DELETE']) {
      const response = await server.app.request('/mcp', { method, headers: { host: '127.0.0.1', authorization: `Bearer ${TOKEN}`, 'x-tierflow-request': '1' } });
      expect(response.status, method).toBe(405);
    }
  });
});
