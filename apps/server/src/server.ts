import { serve, type ServerType } from '@hono/node-server';
import { OpenAPIHono } from '@hono/zod-openapi';
import { errorKindOf, isTierflowError } from '@tierflow/protocol';
import { cellPrefixes, connect, isTlsUrl, redisWhere } from '@tierflow/runtime/admin';
import { consoleLogger, TierflowClient, type RuntimeOptions, type TierLogger } from '@tierflow/runtime';
import type { Queue } from 'bullmq';
import { HTTPException } from 'hono/http-exception';
import { a2aRoutes } from './a2a/a2a-routes.js';
import { A2A_PATH } from './a2a/agent-card.js';
import { bearerAuth, SESSION_PATH, signIn } from './auth/bearer-auth.js';
import { bodyLimits, OBJECTIVE_SLACK_BYTES } from './auth/body-limits.js';
import { trustedProxies } from './auth/client-address.js';
import { crossSiteCheck } from './auth/cross-site.js';
import { FailureThrottle, SIGN_IN_LIMITS } from './auth/failure-throttle.js';
import { hostCheck, hostPolicy } from './auth/host-check.js';
import type { ServerOptions } from './config/server-options.js';
import { dashboard } from './dashboard/dashboard.js';
import { httpStatusOf } from './errors/http-status.js';
import { readiness, redisDeadline, type RedisHealth } from './health/redis-deadline.js';
import { QueueDepths } from './metrics/deployment-gauges.js';
import { METRICS_PATH, metricsRoutes } from './metrics/metrics-routes.js';
import { MCP_PATH, mcpRoutes } from './mcp/mcp-routes.js';
import { queueBoard } from './queues/queue-board.js';
import { nodeRoutes } from './runs/node-routes.js';
import { runRoutes } from './runs/run-routes.js';
import { runStream } from './runs/run-stream.js';
import { statsRoutes } from './stats/stats-routes.js';
import { webhookRoutes } from './webhooks/webhook-routes.js';

/** A built server: its app (to mount or to call with `app.request` in tests) and what to close. */
export interface TierflowServer {
  readonly app: OpenAPIHono;
  readonly client: TierflowClient;
  /** Starts what a server that serves does in the background: sampling the queue depth into the metric store ({@link listen} calls it). */
  start(): void;
  close(): Promise<void>;
}

/**
 * The HTTP server of `tierflow serve`: the runs API under /api with its OpenAPI description at
 * /openapi.json, the A2A endpoint at /a2a (its agent card at /.well-known/agent-card.json), Bull
 * Board at /queues, the deployment's figures for Prometheus at /metrics, an MCP endpoint at /mcp, the web dashboard at /. In front: the Host check (DNS rebinding), the
 * cross-site check (other sites' pages), body limits, and the token check. It keeps nothing but
 * Redis connections (and each process's count of wrong tokens), so any number can serve one
 * deployment behind a load balancer.
 */
export function createServer(runtime: RuntimeOptions, options: ServerOptions, log: TierLogger = consoleLogger('server')): TierflowServer {
  const client = new TierflowClient(runtime);
  const redis = connect(runtime);
  const app = new OpenAPIHono({
    // A body that does not match its schema: one line per problem, as every other refusal reads.
    defaultHook: (result, c) => {
      if (result.success) return;
      const problems = result.error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`);
      return c.json({ error: { code: 'invalid_request', message: problems.join('; '), problems } }, 400);
    },
  });
  const proxies = trustedProxies(options.trustedProxies);
  const guard = { token: options.token, throttle: new FailureThrottle(SIGN_IN_LIMITS), proxies, log, metricsPublic: options.metricsPublic };
  // In this order: a request that names another host, or may come from another site's page, is
  // refused before anything else looks at it; a body is bounded before anything reads it.
  app.use('*', hostCheck(hostPolicy(options)));
  app.use('*', crossSiteCheck(options.allowedHosts));
  const objectiveBytes = runtime.limits.maxObjectiveBytes + OBJECTIVE_SLACK_BYTES;
  app.use('*', bodyLimits({ objectiveBytes, ownLimit: new Set([A2A_PATH, MCP_PATH]) }));
  app.use('*', bearerAuth(guard));
  app.post(SESSION_PATH, signIn(guard));
  const health: RedisHealth = { redis, where: redisWhere(runtime), tls: isTlsUrl(runtime.redisUrl), timeoutMs: runtime.connectTimeoutMs };
  // A Redis that is away makes API requests answer 503 in seconds, not wait with it.
  app.use('/api/*', redisDeadline(health));
  app.use(METRICS_PATH, redisDeadline(health));
  app.use(MCP_PATH, redisDeadline(health));
  app.get('/healthz', (c) => c.json({ ok: true }));
  const ready = readiness(health);
  app.get('/readyz', async (c) => {
    const state = await ready();
    return c.json(state, state.ok ? 200 : 503);
  });
  runRoutes(app, { client, redis, runtime, jaegerUrl: options.jaegerUrl });
  nodeRoutes(app, { redis, runtime });
  runStream(app, client);
  a2aRoutes(app, { client, options, runtime, log, proxies });
  // Stateless (a server and transport per request), like the rest: see mcp/mcp-routes.ts.
  mcpRoutes(app, { client, jaegerUrl: options.jaegerUrl, maxBodyBytes: objectiveBytes });
  const queues: Queue[] = queueBoard(app, redis, cellPrefixes(runtime), options.queueActions);
  const depths = new QueueDepths(redis, runtime, log);
  metricsRoutes(app, { client, redis, runtime, depths });
  statsRoutes(app, { client });
  webhookRoutes(app, { redis, runtime });
  dashboard(app, options.token);
  app.doc31('/openapi.json', { openapi: '3.1.0', info: { title: 'Tierflow', version: '1.0.0', description: 'Runs of a Tierflow deployment: enqueue, watch, cancel, answer.' } });
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });
  app.onError((error, c) => {
    // Hono's own refusals (a body that is not JSON, say) keep their status, in the API's shape.
    if (error instanceof HTTPException && error.status < 500) return c.json({ error: { code: 'invalid_request', message: error.message } }, error.status);
    // A runtime error answers with the status of its kind, its code and message (docs/protocol.md#thrown-errors).
    const status = isTierflowError(error) ? httpStatusOf(error.code, errorKindOf(error)) : 500;
    if (status >= 500) log.warn('request failed', { method: c.req.method, path: c.req.path, error: error.message });
    if (status !== 500 && isTierflowError(error)) return c.json({ error: { code: error.code, message: error.message } }, status);
    return c.json({ error: { code: 'internal', message: 'the server could not answer this request' } }, 500);
  });
  return {
    app,
    client,
    // Queue depth sampled into the metric store while the server serves: the Metrics page's history of it.
    start: () => depths.start(),
    close: async () => {
      await Promise.all([...queues.map((queue) => queue.close()), depths.close()]);
      await client.close();
      redis.disconnect();
    },
  };
}

/** Listens on the options' host and port, and starts the server's background work; resolves once listening, with the address. */
export function listen(server: TierflowServer, options: Pick<ServerOptions, 'host' | 'port'>): Promise<{ readonly http: ServerType; readonly url: string }> {
  return new Promise((resolve, reject) => {
    const http = serve({ fetch: server.app.fetch, hostname: options.host, port: options.port }, (info) => {
      const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      server.start();
      resolve({ http, url: `http://${host}:${info.port}` });
    });
    http.once('error', reject);
  });
}
