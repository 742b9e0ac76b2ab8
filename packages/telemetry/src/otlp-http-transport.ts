import type { Agent, ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import type { ExportResponse, IExporterTransport } from '@opentelemetry/otlp-exporter-base';
import type { convertLegacyHttpOptions } from '@opentelemetry/otlp-exporter-base/node-http';
import { parseRetryAfter } from '@tierflow/core';
import { classifyRequestError, classifyStatus, CollectorAvailability, retryDelay, type FailureKind } from './export-policy.js';

const gzip = promisify(gzipCallback);

/** The exporter settings the SDK reads from OTEL_EXPORTER_OTLP_* (endpoint, headers, timeout, compression, TLS agent). */
export type OtlpHttpSettings = ReturnType<typeof convertLegacyHttpOptions>;

type Request = (url: URL, options: RequestOptions, onResponse: (response: IncomingMessage) => void) => ClientRequest;

type Attempt = { readonly kind: 'accepted' } | { readonly kind: FailureKind; readonly error: Error; readonly retryAfterMs?: number | undefined };

const USER_AGENT = 'tierflow-telemetry';

/**
 * Sends encoded spans to an OTLP/HTTP collector, in place of the SDK's transport, which retries a
 * refused connection for up to 8 s and whose timers keep the process alive meanwhile. Here a
 * refused connection is not retried: it marks the collector down, and sends fail at once until the
 * cool-down has passed. {@link shutdown} stops everything in flight, so nothing is left to hold the process.
 */
export class OtlpHttpTransport implements IExporterTransport {
  private readonly stopped = new AbortController();
  private readonly url: URL;
  private http: Promise<{ agent: Agent; request: Request }> | undefined;

  constructor(
    private readonly settings: OtlpHttpSettings,
    readonly availability: CollectorAvailability = new CollectorAvailability(),
  ) {
    this.url = new URL(settings.url);
  }

  /** True while sends fail at once: after {@link shutdown}, or while the collector is taken to be down. */
  get refusing(): boolean {
    return this.stopped.signal.aborted || this.availability.isDown(Date.now());
  }

  async send(data: Uint8Array, timeoutMillis: number): Promise<ExportResponse> {
    const deadline = Date.now() + timeoutMillis;
    for (let retry = 1; ; retry++) {
      if (this.stopped.signal.aborted) return { status: 'failure', error: new Error('telemetry has shut down') };
      if (this.availability.isDown(Date.now())) return { status: 'failure', error: new Error(`the collector at ${this.url.origin} is unreachable; spans are dropped for now`) };
      const attempt = await this.attempt(data, deadline - Date.now());
      if (attempt.kind === 'accepted') {
        this.availability.markUp();
        return { status: 'success' };
      }
      if (attempt.kind === 'unreachable') this.availability.markDown(Date.now());
      const delay = attempt.kind === 'transient' && !this.stopped.signal.aborted ? retryDelay(retry, deadline - Date.now(), attempt.retryAfterMs) : null;
      if (delay === null) return { status: 'failure', error: attempt.error };
      try {
        await sleep(delay, undefined, { signal: this.stopped.signal });
      } catch {
        return { status: 'failure', error: attempt.error };
      }
    }
  }

  /** Aborts the requests and retries in flight, refuses later sends, and closes kept-alive connections. Idempotent. */
  shutdown(): void {
    if (this.stopped.signal.aborted) return;
    this.stopped.abort();
    void this.http?.then(
      ({ agent }) => agent.destroy(),
      () => undefined,
    );
  }

  private loadHttp(): Promise<{ agent: Agent; request: Request }> {
    // The agent comes from the SDK's settings (keep-alive, and the OTEL_EXPORTER_OTLP_*CERTIFICATE files).
    this.http ??= Promise.all([this.settings.agentFactory(this.url.protocol), this.url.protocol === 'http:' ? import('node:http') : import('node:https')]).then(([agent, module]) => ({
      agent,
      request: module.request,
    }));
    return this.http;
  }

  private async attempt(data: Uint8Array, timeoutMs: number): Promise<Attempt> {
    let body: Uint8Array;
    let headers: Record<string, string>;
    let http: { agent: Agent; request: Request };
    try {
      [http, headers] = await Promise.all([this.loadHttp(), this.settings.headers()]);
      body = this.settings.compression === 'gzip' ? await gzip(data) : data;
    } catch (error) {
      return { kind: 'permanent', error: asError(error) };
    }
    headers = { ...headers, 'User-Agent': this.settings.userAgent ? `${this.settings.userAgent} ${USER_AGENT}` : USER_AGENT, 'Content-Length': String(body.byteLength) };
    if (this.settings.compression === 'gzip') headers['Content-Encoding'] = 'gzip';
    return new Promise<Attempt>((resolve) => {
      const request = http.request(this.url, { method: 'POST', headers, agent: http.agent, signal: this.stopped.signal, timeout: Math.max(1, timeoutMs) }, (response) => {
        // Only the status matters: a partial success is not acted on, so the body is drained unread.
        response.resume();
        response.once('end', () => {
          const kind = classifyStatus(response.statusCode ?? 0);
          if (kind === 'accepted') resolve({ kind });
          else
            resolve({
              kind,
              error: new Error(`the collector answered ${response.statusCode} ${response.statusMessage ?? ''}`.trim()),
              retryAfterMs: parseRetryAfter(headerText(response.headers['retry-after']), Date.now()),
            });
        });
        response.once('error', (error) => resolve({ kind: 'transient', error }));
      });
      request.once('timeout', () => {
        resolve({ kind: 'transient', error: new Error(`no answer from the collector within ${timeoutMs} ms`) });
        request.destroy();
      });
      request.on('error', (error) => resolve({ kind: this.stopped.signal.aborted ? 'permanent' : classifyRequestError(error), error }));
      request.end(body);
    });
  }
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
