/**
 * `tierflow serve`: a deployment's runs over HTTP, with an OpenAPI description, Server-Sent
 * Events of each run, an Agent2Agent (A2A) endpoint, an MCP endpoint, and Bull Board for the raw
 * queues. `tierflow mcp` serves the same MCP server over stdio (`tierflowMcpServer`).
 *
 * ```ts
 * import { runtimeOptionsFromEnv } from '@tierflow/runtime';
 * import { createServer, listen, serverOptionsFromEnv } from '@tierflow/server';
 *
 * const options = serverOptionsFromEnv(process.env, { port: 8080 });
 * const server = createServer(runtimeOptionsFromEnv(), options);
 * const { url } = await listen(server, options);
 * // POST {url}/api/runs with an objective file; GET {url}/api/runs/<root id>/events to follow it.
 * ```
 *
 * @module
 */
export { a2aRoutes, AGENT_CARD_PATH } from './a2a/a2a-routes.js';
export type { A2aRouteDeps } from './a2a/a2a-routes.js';
export { A2A_PATH, agentCard, liveSpecialists } from './a2a/agent-card.js';
export type { CardFacts } from './a2a/agent-card.js';
export { RunRequestHandler } from './a2a/run-request-handler.js';
export type { RunRequestHandlerDeps } from './a2a/run-request-handler.js';
export { bearerAuth, isProtected, TOKEN_COOKIE } from './auth/bearer-auth.js';
export type { TokenGuard } from './auth/bearer-auth.js';
export { bodyLimitOf, SMALL_BODY_BYTES } from './auth/body-limits.js';
export { clientAddress, trustedProxies } from './auth/client-address.js';
export { crossSiteRefusal, REQUEST_MARK_HEADER } from './auth/cross-site.js';
export { FailureThrottle, SIGN_IN_LIMITS } from './auth/failure-throttle.js';
export type { ThrottleLimits } from './auth/failure-throttle.js';
export { hostAllowed, hostPolicy } from './auth/host-check.js';
export { isLoopback, resolveServerOptions, SERVER_DEFAULTS, serverOptionsFromEnv } from './config/server-options.js';
export type { ServerOptions, ServerOptionsInput } from './config/server-options.js';
export { createServer, listen } from './server.js';
export type { TierflowServer } from './server.js';
export { METRICS_PAGE_PATH, SPECIALISTS_PAGE_PATH } from './dashboard/dashboard.js';
export { MCP_PATH } from './mcp/mcp-routes.js';
export { tierflowMcpServer } from './mcp/mcp-server.js';
export type { McpServerOptions } from './mcp/mcp-server.js';
export { METRICS_PATH, metricsRoutes } from './metrics/metrics-routes.js';
export type { MetricsRouteDeps } from './metrics/metrics-routes.js';
export { METRIC_WINDOWS, metricsSchema } from './metrics/metrics-schemas.js';
export type { MetricsAnswer, MetricWindow } from './metrics/metrics-schemas.js';
export { statsRoutes } from './stats/stats-routes.js';
export { statsQuery, statsSchema } from './stats/stats-schemas.js';
export { deliveriesQuery, deliveriesSchema } from './webhooks/webhook-routes.js';
