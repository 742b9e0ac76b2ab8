import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import type { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { metricsUrl, type PrometheusSettings } from './metrics-config.js';

/** A process's /metrics endpoint, listening. */
export interface PrometheusEndpoint {
  readonly port: number;
  /** Where it is scraped, e.g. `http://localhost:9465/metrics`. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves `exporter`'s figures on GET /metrics, on the first free port of `settings` (from its
 * first port on): so the workers of one host each take a port of their own without being told
 * which. The exporter's own server takes only the one port it is given, so it is left unstarted
 * and this one asks it for the text. Null when every port tried is taken (or the host is not
 * this machine's): the process then runs without the endpoint, and `problem` says why.
 */
export async function servePrometheus(exporter: PrometheusExporter, settings: PrometheusSettings): Promise<{ endpoint: PrometheusEndpoint } | { endpoint: null; problem: string }> {
  const server = createServer((request, response) => answer(exporter, request, response));
  // A scrape endpoint alone must not keep a process alive.
  server.unref();
  let lastError: unknown = null;
  for (let offset = 0; offset < settings.ports; offset++) {
    try {
      const port = await listen(server, settings.host, settings.port + offset);
      return { endpoint: { port, url: metricsUrl(settings.host, port, hostname()), close: () => close(server) } };
    } catch (error) {
      lastError = error;
      // Another process has this port: the next one. Anything else will not go away by trying on.
      if (!(error instanceof Error && 'code' in error && error.code === 'EADDRINUSE')) break;
    }
  }
  const tried = settings.ports > 1 ? `ports ${settings.port}-${settings.port + settings.ports - 1}` : `port ${settings.port}`;
  return { endpoint: null, problem: `no /metrics endpoint on ${settings.host}, ${tried} (${lastError instanceof Error ? lastError.message : String(lastError)})` };
}

function answer(exporter: PrometheusExporter, request: IncomingMessage, response: ServerResponse): void {
  const path = (request.url ?? '').split('?')[0];
  if (path === '/metrics' && (request.method === 'GET' || request.method === 'HEAD')) {
    exporter.getMetricsRequestHandler(request, response);
    return;
  }
  response.writeHead(404, { 'content-type': 'text/plain' }).end('not found: the figures are at /metrics\n');
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const failed = (error: Error) => {
      server.off('listening', listening);
      reject(error);
    };
    const listening = () => {
      server.off('error', failed);
      resolve((server.address() as AddressInfo).port);
    };
    server.once('error', failed);
    server.once('listening', listening);
    server.listen({ host, port, exclusive: true });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
