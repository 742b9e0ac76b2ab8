import { A2A_VERSION_HEADER, AgentCard, Extensions, HTTP_EXTENSION_HEADER } from '@a2a-js/sdk';
import { ContentTypeNotSupportedError } from '@a2a-js/sdk/errors';
import { defaultServerCallContextBuilder, JsonRpcTransportHandler, validateVersion, type ServerCallContext } from '@a2a-js/sdk/server';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { RuntimeOptions, TierflowClient, TierLogger } from '@tierflow/runtime';
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import { requestOrigin, type TrustedProxies } from '../auth/client-address.js';
import type { ServerOptions } from '../config/server-options.js';
import { STREAM_INTERVAL_MS } from '../runs/run-stream.js';
import { A2A_PATH, agentCard, liveSpecialists } from './agent-card.js';
import { REQUEST_SIGNAL, RunRequestHandler } from './run-request-handler.js';

/** Where clients find the agent card (A2A's well-known path). */
export const AGENT_CARD_PATH = '/.well-known/agent-card.json';

export interface A2aRouteDeps {
  readonly client: TierflowClient;
  readonly options: Pick<ServerOptions, 'token' | 'a2aMaxDepth'>;
  /** The deployment's input limits bound a request's size. */
  readonly runtime: Pick<RuntimeOptions, 'limits' | 'deploymentId'>;
  readonly log: TierLogger;
  /** The proxies whose X-Forwarded-Proto and -Host name the origin the client reached; none when left out. */
  readonly proxies?: TrustedProxies;
  /** How often waits and streams read a run again; the runs API's stream interval when left out. */
  readonly intervalMs?: number;
}

type JsonRpcId = string | number | null;

const envelopeIdSchema = z.object({ id: z.union([z.string(), z.int(), z.null()]) });

/** The request's JSON-RPC id, for an answer given before the SDK reads it; null when it has none that can be read. */
function requestIdOf(body: string): JsonRpcId {
  try {
    const parsed = envelopeIdSchema.safeParse(JSON.parse(body));
    return parsed.success ? parsed.data.id : null;
  } catch {
    return null;
  }
}

function rpcError(id: JsonRpcId, error: unknown): { jsonrpc: '2.0'; id: JsonRpcId; error: ReturnType<typeof JsonRpcTransportHandler.mapToJSONRPCError> } {
  return { jsonrpc: '2.0', id, error: JsonRpcTransportHandler.mapToJSONRPCError(error) };
}

function callContext(c: Context): ServerCallContext {
  const version = c.req.header(A2A_VERSION_HEADER);
  const context = defaultServerCallContextBuilder({
    extensions: Extensions.parseServiceParameter(c.req.header(HTTP_EXTENSION_HEADER)),
    user: undefined,
    headers: c.req.header(),
    ...(version ? { requestedVersion: version } : {}),
  });
  context.state.set(REQUEST_SIGNAL, c.req.raw.signal);
  return context;
}

/**
 * The deployment as an Agent2Agent agent: its card at {@link AGENT_CARD_PATH} (public), and the
 * JSON-RPC methods at {@link A2A_PATH} (behind the token, as the API is), streaming ones answered
 * as Server-Sent Events. The SDK's transport handler reads each request and writes each answer;
 * {@link RunRequestHandler} answers from the runs in Redis.
 */
export function a2aRoutes(app: OpenAPIHono, deps: A2aRouteDeps): void {
  const intervalMs = deps.intervalMs ?? STREAM_INTERVAL_MS;
  const tokenRequired = deps.options.token !== null;
  const proxies = deps.proxies ?? null;
  // The Fleet's registry alone: a few keys, whatever else Redis holds (the card is open to anyone).
  const cardFor = async (c: Context): Promise<AgentCard> => agentCard({ origin: requestOrigin(c, proxies), tokenRequired, specialists: liveSpecialists(await deps.client.workers(['fleet'])) });

  app.openAPIRegistry.registerPath({
    method: 'get',
    path: AGENT_CARD_PATH,
    summary: 'The A2A agent card: this deployment as one agent, a skill per specialist its Fleet serves',
    responses: { 200: { description: 'The card', content: { 'application/json': { schema: { type: 'object' } } } } },
  });
  app.get(AGENT_CARD_PATH, async (c) => {
    // The skills follow the live workers: a cache would keep a stale list.
    c.header('Cache-Control', 'no-cache');
    return c.json(AgentCard.toJSON(await cardFor(c)) as Record<string, unknown>);
  });

  app.openAPIRegistry.registerPath({
    method: 'post',
    path: A2A_PATH,
    summary: 'A2A JSON-RPC: SendMessage, SendStreamingMessage (Server-Sent Events), GetTask, CancelTask, SubscribeToTask',
    responses: {
      200: { description: 'A JSON-RPC response, or an event stream of them', content: { 'application/json': { schema: { type: 'object' } }, 'text/event-stream': { schema: { type: 'string' } } } },
    },
  });
  // A message carries the objective twice at most (its text and its objective file): room for both.
  const maxSize = 2 * deps.runtime.limits.maxObjectiveBytes + 64 * 1024;
  app.post(A2A_PATH, bodyLimit({ maxSize, onError: (c) => c.json({ jsonrpc: '2.0', id: null, error: { code: -32600, message: `the request is over ${maxSize} bytes` } }, 413) }), async (c) => {
    const type = c.req.header('content-type');
    if (type !== undefined && type.split(';', 1)[0]?.trim().toLowerCase() !== 'application/json') {
      return c.json(rpcError(null, new ContentTypeNotSupportedError(`unsupported Content-Type "${type}"; expected application/json`)));
    }
    const body = await c.req.text();
    const id = requestIdOf(body);
    const context = callContext(c);
    try {
      // The version depends on the interface alone: no need for the workers' skills here.
      validateVersion(context.requestedVersion, agentCard({ origin: requestOrigin(c, proxies), tokenRequired, specialists: [] }), 'JSONRPC');
    } catch (error) {
      return c.json(rpcError(id, error));
    }
    const handler = new RunRequestHandler({
      client: deps.client,
      card: () => cardFor(c),
      intervalMs,
      log: deps.log,
      deploymentId: deps.runtime.deploymentId,
      maxDepth: deps.options.a2aMaxDepth,
    });
    const answer = await new JsonRpcTransportHandler(handler).handle(body, context);
    if (!(Symbol.asyncIterator in answer)) return c.json(answer);
    const events = answer[Symbol.asyncIterator]();
    // An error before the first event (a bad message, an unknown task) is a plain JSON-RPC answer.
    let first: IteratorResult<unknown>;
    try {
      first = await events.next();
    } catch (error) {
      return c.json(rpcError(id, error));
    }
    return streamSSE(c, async (stream) => {
      try {
        for (let next = first; !next.done && !stream.aborted; next = await events.next()) await stream.writeSSE({ data: JSON.stringify(next.value) });
      } catch (error) {
        if (!stream.aborted) await stream.writeSSE({ event: 'error', data: JSON.stringify(rpcError(id, error)) });
      } finally {
        await events.return(undefined);
      }
    });
  });
}
