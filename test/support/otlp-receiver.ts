/**
 * An OTLP/HTTP trace receiver that a test starts itself, in place of Jaeger or a collector: it
 * accepts `POST /v1/traces` in OTLP/JSON and OTLP/protobuf (optionally gzip'd), and keeps every
 * span it is sent, flattened into {@link ReceivedSpan}s.
 *
 * ```ts
 * const receiver = await startOtlpReceiver();
 * // OTEL_EXPORTER_OTLP_ENDPOINT=receiver.url, or an exporter with url `${receiver.url}/v1/traces`
 * const span = await waitFor(() => receiver.spans.find((s) => s.name === 'job'), { description: 'the job span' });
 * await receiver.close();
 * ```
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { gunzip as gunzipCallback } from 'node:zlib';
import protobuf from 'protobufjs';

const gunzip = promisify(gunzipCallback);

export type AttributeValue = string | number | boolean | null;

/** One span as an exporter sent it, with ids in lowercase hex and enums as names. */
export interface ReceivedSpan {
  /** Lowercase hex, 32 characters. */
  traceId: string;
  /** Lowercase hex, 16 characters. */
  spanId: string;
  /** Lowercase hex, or null for a root span (absent or empty in the request). */
  parentSpanId: string | null;
  name: string;
  kind: 'INTERNAL' | 'SERVER' | 'CLIENT' | 'PRODUCER' | 'CONSUMER' | 'UNSPECIFIED';
  /**
   * OTLP AnyValues flattened: strings, booleans and doubles as they are; ints as numbers (as
   * decimal strings beyond Number.MAX_SAFE_INTEGER); bytes as base64; arrays and kvlists as JSON.
   */
  attributes: Record<string, AttributeValue>;
  events: { name: string; attributes: Record<string, AttributeValue> }[];
  links: { traceId: string; spanId: string }[];
  status: 'UNSET' | 'OK' | 'ERROR';
  /** The resource attribute `service.name`; empty when the resource has none. */
  serviceName: string;
  resource: Record<string, AttributeValue>;
  /** How this span arrived. */
  encoding: 'json' | 'protobuf';
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: the OTEL_EXPORTER_OTLP_ENDPOINT base; exporters POST to `${url}/v1/traces`. */
  readonly url: string;
  /** Every span received so far, in arrival order (the array grows in place). */
  readonly spans: ReceivedSpan[];
  /** The POSTs to /v1/traces received so far, accepted or not. */
  readonly requests: number;
  /**
   * With `decodeLater`: decodes the requests accepted so far into {@link spans}. A request that
   * does not decode was already answered 200, so it is reported here instead.
   */
  decodePending(): void;
  /** Stops listening and drops open (keep-alive) connections. */
  close(): Promise<void>;
}

const TRACES_PATH = '/v1/traces';
const MAX_BODY_BYTES = 64 * 1024 * 1024;

/**
 * The messages of opentelemetry-proto (common/v1, resource/v1, trace/v1, collector/trace/v1) that
 * an ExportTraceServiceRequest needs, with the upstream field numbers; fields left out (newer
 * string-table indexes, entity refs) are skipped on decoding like any unknown field.
 */
const PROTOS = [
  `syntax = "proto3";
  package opentelemetry.proto.common.v1;
  message AnyValue {
    oneof value {
      string string_value = 1;
      bool bool_value = 2;
      int64 int_value = 3;
      double double_value = 4;
      ArrayValue array_value = 5;
      KeyValueList kvlist_value = 6;
      bytes bytes_value = 7;
    }
  }
  message ArrayValue { repeated AnyValue values = 1; }
  message KeyValueList { repeated KeyValue values = 1; }
  message KeyValue { string key = 1; AnyValue value = 2; }
  message InstrumentationScope {
    string name = 1;
    string version = 2;
    repeated KeyValue attributes = 3;
    uint32 dropped_attributes_count = 4;
  }`,
  `syntax = "proto3";
  package opentelemetry.proto.resource.v1;
  message Resource {
    repeated opentelemetry.proto.common.v1.KeyValue attributes = 1;
    uint32 dropped_attributes_count = 2;
  }`,
  `syntax = "proto3";
  package opentelemetry.proto.trace.v1;
  message ResourceSpans {
    opentelemetry.proto.resource.v1.Resource resource = 1;
    repeated ScopeSpans scope_spans = 2;
    string schema_url = 3;
  }
  message ScopeSpans {
    opentelemetry.proto.common.v1.InstrumentationScope scope = 1;
    repeated Span spans = 2;
    string schema_url = 3;
  }
  message Span {
    bytes trace_id = 1;
    bytes span_id = 2;
    string trace_state = 3;
    bytes parent_span_id = 4;
    fixed32 flags = 16;
    string name = 5;
    enum SpanKind {
      SPAN_KIND_UNSPECIFIED = 0;
      SPAN_KIND_INTERNAL = 1;
      SPAN_KIND_SERVER = 2;
      SPAN_KIND_CLIENT = 3;
      SPAN_KIND_PRODUCER = 4;
      SPAN_KIND_CONSUMER = 5;
    }
    SpanKind kind = 6;
    fixed64 start_time_unix_nano = 7;
    fixed64 end_time_unix_nano = 8;
    repeated opentelemetry.proto.common.v1.KeyValue attributes = 9;
    uint32 dropped_attributes_count = 10;
    message Event {
      fixed64 time_unix_nano = 1;
      string name = 2;
      repeated opentelemetry.proto.common.v1.KeyValue attributes = 3;
      uint32 dropped_attributes_count = 4;
    }
    repeated Event events = 11;
    uint32 dropped_events_count = 12;
    message Link {
      bytes trace_id = 1;
      bytes span_id = 2;
      string trace_state = 3;
      repeated opentelemetry.proto.common.v1.KeyValue attributes = 4;
      uint32 dropped_attributes_count = 5;
      fixed32 flags = 6;
    }
    repeated Link links = 13;
    uint32 dropped_links_count = 14;
    Status status = 15;
  }
  message Status {
    reserved 1;
    string message = 2;
    enum StatusCode {
      STATUS_CODE_UNSET = 0;
      STATUS_CODE_OK = 1;
      STATUS_CODE_ERROR = 2;
    }
    StatusCode code = 3;
  }`,
  `syntax = "proto3";
  package opentelemetry.proto.collector.trace.v1;
  message ExportTraceServiceRequest {
    repeated opentelemetry.proto.trace.v1.ResourceSpans resource_spans = 1;
  }`,
];

let requestType: protobuf.Type | undefined;

/** The ExportTraceServiceRequest type, built from {@link PROTOS} on first use. */
function exportTraceServiceRequest(): protobuf.Type {
  if (requestType === undefined) {
    const root = new protobuf.Root();
    for (const source of PROTOS) protobuf.parse(source, root, { keepCase: false });
    root.resolveAll();
    requestType = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
  }
  return requestType;
}

/**
 * Decodes an OTLP/protobuf body into the shape of OTLP/JSON (camelCase names, enums as numbers,
 * 64-bit ints as decimal strings), except that bytes stay bytes.
 */
function decodeProtobuf(body: Buffer): unknown {
  const type = exportTraceServiceRequest();
  return type.toObject(type.decode(body), { longs: String, enums: Number, defaults: false, arrays: true });
}

/** What a receiver is started with. */
export interface OtlpReceiverOptions {
  /**
   * Answer at once and decode only on {@link OtlpReceiver.decodePending}: for benchmarks, where a
   * collector's decoding would otherwise take CPU from the processes being measured.
   */
  readonly decodeLater?: boolean;
}

/** The environment that has a process export its spans to `receiver` over OTLP/HTTP. */
export function tracingTo(receiver: Pick<OtlpReceiver, 'url'>, protocol: 'http/protobuf' | 'http/json' = 'http/protobuf'): NodeJS.ProcessEnv {
  return { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: protocol };
}

/** Starts a receiver on 127.0.0.1 on a free port. */
export async function startOtlpReceiver(options: OtlpReceiverOptions = {}): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const pending: { body: Buffer; encoding: ReceivedSpan['encoding'] }[] = [];
  let requests = 0;

  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) reply(response, 500, 'text/plain', errorText(error));
      else response.destroy();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? '/', 'http://receiver').pathname;
    if (path !== TRACES_PATH) {
      request.resume();
      reply(response, 404, 'text/plain', `no route for ${path}`);
      return;
    }
    if (request.method !== 'POST') {
      request.resume();
      response.setHeader('Allow', 'POST');
      reply(response, 405, 'text/plain', `${TRACES_PATH} takes POST`);
      return;
    }
    requests += 1;

    const mediaType = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    const encoding = mediaType === 'application/json' ? 'json' : mediaType === 'application/x-protobuf' ? 'protobuf' : undefined;
    if (encoding === undefined) {
      request.resume();
      reply(response, 415, 'text/plain', `unsupported content type ${JSON.stringify(mediaType)}`);
      return;
    }
    const contentEncoding = (request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
    if (contentEncoding !== 'identity' && contentEncoding !== 'gzip') {
      request.resume();
      reply(response, 415, 'text/plain', `unsupported content encoding ${JSON.stringify(contentEncoding)}`);
      return;
    }

    let received: ReceivedSpan[];
    try {
      const raw = await readBody(request);
      const body = contentEncoding === 'gzip' ? await gunzip(raw) : raw;
      if (options.decodeLater) {
        pending.push({ body, encoding });
        received = [];
      } else received = decodeRequest(body, encoding);
    } catch (error) {
      reply(response, 400, 'text/plain', `could not decode the ${encoding} request: ${errorText(error)}`);
      return;
    }
    spans.push(...received);
    // An empty ExportTraceServiceResponse: every span accepted.
    if (encoding === 'json') reply(response, 200, 'application/json', '{}');
    else reply(response, 200, 'application/x-protobuf', Buffer.alloc(0));
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    get requests() {
      return requests;
    },
    decodePending() {
      for (const { body, encoding } of pending.splice(0)) spans.push(...decodeRequest(body, encoding));
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        if (!server.listening) {
          resolve();
          return;
        }
        server.close((error) => (error ? reject(error) : resolve()));
        // Exporters keep connections alive; without this, close waits for them to time out.
        server.closeAllConnections();
      }),
  };
}

/** An ExportTraceServiceRequest's spans, flattened. */
export function decodeRequest(body: Buffer, encoding: ReceivedSpan['encoding']): ReceivedSpan[] {
  const decoded: unknown = encoding === 'json' ? JSON.parse(body.toString('utf8')) : decodeProtobuf(body);
  return flattenRequest(decoded, encoding);
}

function reply(response: ServerResponse, status: number, contentType: string, body: string | Buffer): void {
  response.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  response.end(body);
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new Error(`body larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

// ---------------------------------------------------------------------------------------------
// Flattening. Both encodings arrive here in the OTLP/JSON shape; the protobuf one has bytes
// where JSON has hex ids (and base64 bytesValues). Anything missing reads as its proto3 default.

type Json = Record<string, unknown>;

const SPAN_KINDS = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'] as const;
const STATUS_CODES = ['UNSET', 'OK', 'ERROR'] as const;

function flattenRequest(request: unknown, encoding: ReceivedSpan['encoding']): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const resourceSpans of list(record(request, 'request').resourceSpans)) {
    const rs = record(resourceSpans, 'resourceSpans');
    const resource = flattenAttributes(rs.resource === undefined || rs.resource === null ? undefined : record(rs.resource, 'resource').attributes);
    const serviceName = resource['service.name'];
    for (const scopeSpans of list(rs.scopeSpans)) {
      for (const rawSpan of list(record(scopeSpans, 'scopeSpans').spans)) {
        const span = record(rawSpan, 'span');
        const status = span.status === undefined || span.status === null ? {} : record(span.status, 'status');
        out.push({
          traceId: id(span.traceId, 16, 'traceId'),
          spanId: id(span.spanId, 8, 'spanId'),
          parentSpanId: isEmptyId(span.parentSpanId) ? null : id(span.parentSpanId, 8, 'parentSpanId'),
          name: typeof span.name === 'string' ? span.name : '',
          kind: enumName(span.kind, SPAN_KINDS, 'SPAN_KIND_', 'kind'),
          attributes: flattenAttributes(span.attributes),
          events: list(span.events).map((event) => {
            const e = record(event, 'event');
            return { name: typeof e.name === 'string' ? e.name : '', attributes: flattenAttributes(e.attributes) };
          }),
          links: list(span.links).map((link) => {
            const l = record(link, 'link');
            return { traceId: id(l.traceId, 16, 'link traceId'), spanId: id(l.spanId, 8, 'link spanId') };
          }),
          status: enumName(status.code, STATUS_CODES, 'STATUS_CODE_', 'status code'),
          serviceName: typeof serviceName === 'string' ? serviceName : '',
          resource,
          encoding,
        });
      }
    }
  }
  return out;
}

function flattenAttributes(attributes: unknown): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const keyValue of list(attributes)) {
    const kv = record(keyValue, 'KeyValue');
    if (typeof kv.key !== 'string') throw new Error(`KeyValue without a string key: ${JSON.stringify(kv)}`);
    out[kv.key] = flattenValue(kv.value);
  }
  return out;
}

function flattenValue(value: unknown): AttributeValue {
  const structured = anyValue(value);
  return structured !== null && typeof structured === 'object' ? JSON.stringify(structured) : structured;
}

type Structured = AttributeValue | Structured[] | { [key: string]: Structured };

/** An AnyValue as plain data: arrays and kvlists as arrays and objects. Empty AnyValue: null. */
function anyValue(value: unknown): Structured {
  if (value === undefined || value === null) return null;
  const v = record(value, 'AnyValue');
  if (typeof v.stringValue === 'string') return v.stringValue;
  if (v.boolValue !== undefined && v.boolValue !== null) return v.boolValue === true || v.boolValue === 'true';
  if (v.intValue !== undefined && v.intValue !== null) return integer(v.intValue);
  if (v.doubleValue !== undefined && v.doubleValue !== null) return Number(v.doubleValue);
  if (v.bytesValue !== undefined && v.bytesValue !== null) return bytesToBase64(v.bytesValue);
  if (v.arrayValue !== undefined && v.arrayValue !== null) return list(record(v.arrayValue, 'arrayValue').values).map(anyValue);
  if (v.kvlistValue !== undefined && v.kvlistValue !== null) {
    const out: Record<string, Structured> = {};
    for (const keyValue of list(record(v.kvlistValue, 'kvlistValue').values)) {
      const kv = record(keyValue, 'KeyValue');
      out[String(kv.key)] = anyValue(kv.value);
    }
    return out;
  }
  return null;
}

/** An int64 as a number, or as its decimal string when a number would lose precision. */
function integer(value: unknown): number | string {
  if (typeof value === 'number') return value;
  const text = String(value);
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : text;
}

function isEmptyId(value: unknown): boolean {
  return value === undefined || value === null || value === '' || (value instanceof Uint8Array && value.length === 0);
}

/**
 * An id as lowercase hex: from bytes (protobuf), from hex (OTLP/JSON, as the spec says), or from
 * base64 (what some older JSON exporters sent).
 */
function id(value: unknown, bytes: number, what: string): string {
  let hex: string | undefined;
  if (value instanceof Uint8Array) hex = Buffer.from(value).toString('hex');
  else if (typeof value === 'string') {
    if (value.length === bytes * 2 && /^[0-9a-f]*$/i.test(value)) hex = value.toLowerCase();
    else if (/^[A-Za-z0-9+/_-]*={0,2}$/.test(value)) hex = Buffer.from(value, 'base64').toString('hex');
  }
  if (hex === undefined || hex.length !== bytes * 2) throw new Error(`${what} is not a ${bytes}-byte id: ${JSON.stringify(value)}`);
  return hex;
}

function bytesToBase64(value: unknown): string {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  return String(value);
}

/** An OTLP enum, given as its number (protobuf, OTLP/JSON) or its full name (proto3 JSON), as the short name. */
function enumName<T extends string>(value: unknown, names: readonly T[], prefix: string, what: string): T {
  if (value === undefined || value === null) return names[0] as T;
  if (typeof value === 'number' && names[value] !== undefined) return names[value];
  if (typeof value === 'string') {
    const short = value.startsWith(prefix) ? value.slice(prefix.length) : value;
    const found = names.find((name) => name === short);
    if (found !== undefined) return found;
    if (/^\d+$/.test(value) && names[Number(value)] !== undefined) return names[Number(value)] as T;
  }
  throw new Error(`unknown ${what} ${JSON.stringify(value)}`);
}

function record(value: unknown, what: string): Json {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${what} is not an object: ${JSON.stringify(value)}`);
  return value as Json;
}

function list(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new Error(`expected an array, got ${JSON.stringify(value)}`);
  return value as unknown[];
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
