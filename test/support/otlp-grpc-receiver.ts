import { Server, ServerCredentials, type ServiceDefinition, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import { decodeRequest, type ReceivedSpan } from './otlp-receiver.js';

/**
 * An OTLP/gRPC trace receiver a test starts itself, in place of a collector's port 4317: it
 * serves TraceService/Export and keeps every span it is sent.
 *
 * ```ts
 * const receiver = await startOtlpGrpcReceiver();
 * // OTEL_EXPORTER_OTLP_ENDPOINT=receiver.url, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc
 * await receiver.close();
 * ```
 */
export interface OtlpGrpcReceiver {
  /** `http://127.0.0.1:<port>`, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  close(): Promise<void>;
}

const EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';

// The request is kept as bytes and decoded with the HTTP receiver's protobuf types; an empty
// ExportTraceServiceResponse encodes as no bytes at all.
const TRACE_SERVICE: ServiceDefinition = {
  Export: {
    path: EXPORT_PATH,
    requestStream: false,
    responseStream: false,
    requestSerialize: (value: Buffer) => value,
    requestDeserialize: (bytes: Buffer) => bytes,
    responseSerialize: () => Buffer.alloc(0),
    responseDeserialize: () => ({}),
  },
};

export async function startOtlpGrpcReceiver(): Promise<OtlpGrpcReceiver> {
  const spans: ReceivedSpan[] = [];
  const server = new Server();
  server.addService(TRACE_SERVICE, {
    Export: (call: ServerUnaryCall<Buffer, object>, answer: sendUnaryData<object>) => {
      spans.push(...decodeRequest(call.request, 'protobuf'));
      answer(null, {});
    },
  });
  const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))));
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}
