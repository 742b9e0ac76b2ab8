import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import { convertLegacyHttpOptions } from '@opentelemetry/otlp-exporter-base/node-http';
import { afterEach, describe, expect, it } from 'vitest';
import { CollectorAvailability } from './export-policy.js';
import { OtlpHttpTransport } from './otlp-http-transport.js';

interface Collector {
  readonly url: string;
  readonly port: number;
  readonly bodies: { headers: IncomingMessage['headers']; body: Buffer }[];
  close(): Promise<void>;
}

/** A local collector that answers each request with `answer` (which may leave it unanswered). */
async function startCollector(answer: (response: ServerResponse, index: number) => void, port = 0): Promise<Collector> {
  const bodies: Collector['bodies'] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      bodies.push({ headers: request.headers, body: Buffer.concat(chunks) });
      answer(response, bodies.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}/v1/traces`,
    port: address.port,
    bodies,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const ok = (response: ServerResponse) => response.writeHead(200).end();
const DATA = new Uint8Array([1, 2, 3]);

function transport(url: string, options: { compression?: CompressionAlgorithm; coolDownMs?: number } = {}): OtlpHttpTransport {
  const settings = convertLegacyHttpOptions({ url, compression: options.compression ?? CompressionAlgorithm.NONE }, 'TRACES', 'v1/traces', { 'Content-Type': 'application/x-protobuf' });
  return new OtlpHttpTransport(settings, new CollectorAvailability(options.coolDownMs ?? 60_000));
}

describe('OtlpHttpTransport', () => {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  it('posts the encoded spans with the content type, and gzips them when asked', async () => {
    const collector = await startCollector(ok);
    cleanup.push(() => collector.close());
    const plain = transport(collector.url);
    const gzipped = transport(collector.url, { compression: CompressionAlgorithm.GZIP });
    cleanup.push(
      () => plain.shutdown(),
      () => gzipped.shutdown(),
    );
    expect(await plain.send(DATA, 10_000)).toEqual({ status: 'success' });
    expect(await gzipped.send(DATA, 10_000)).toEqual({ status: 'success' });
    expect(collector.bodies.map(({ headers }) => [headers['content-type'], headers['content-encoding']])).toEqual([
      ['application/x-protobuf', undefined],
      ['application/x-protobuf', 'gzip'],
    ]);
    expect([...collector.bodies[0]!.body]).toEqual([1, 2, 3]);
    expect([...gunzipSync(collector.bodies[1]!.body)]).toEqual([1, 2, 3]);
  });

  it('does not retry a refused connection; it drops later sends until the cool-down has passed, then tries again', async () => {
    const gone = await startCollector(ok);
    await gone.close();
    const sender = transport(gone.url, { coolDownMs: 300 });
    cleanup.push(() => sender.shutdown());
    const started = Date.now();
    const refused = await sender.send(DATA, 10_000);
    expect(refused).toMatchObject({ status: 'failure', error: { message: expect.stringContaining('ECONNREFUSED') as unknown } });
    expect(Date.now() - started).toBeLessThan(500); // the SDK's retries took ~8 s
    expect(sender.refusing).toBe(true);

    // A collector comes up on the same port: within the cool-down nothing is sent to it.
    const back = await startCollector(ok, gone.port);
    cleanup.push(() => back.close());
    expect(await sender.send(DATA, 10_000)).toMatchObject({ status: 'failure', error: { message: expect.stringContaining('unreachable') as unknown } });
    expect(back.bodies).toHaveLength(0);

    await new Promise((resolve) => setTimeout(resolve, 350)); // the cool-down itself is what is tested
    expect(sender.refusing).toBe(false);
    expect(await sender.send(DATA, 10_000)).toEqual({ status: 'success' });
    expect(back.bodies).toHaveLength(1);
  });

  it('retries a busy collector as its Retry-After says, and not a batch it rejects', async () => {
    const busy = await startCollector((response, index) => (index === 0 ? response.writeHead(503, { 'Retry-After': '0' }).end() : ok(response)));
    const rejecting = await startCollector((response) => response.writeHead(400).end('bad'));
    cleanup.push(
      () => busy.close(),
      () => rejecting.close(),
    );
    const toBusy = transport(busy.url);
    const toRejecting = transport(rejecting.url);
    cleanup.push(
      () => toBusy.shutdown(),
      () => toRejecting.shutdown(),
    );
    expect(await toBusy.send(DATA, 10_000)).toEqual({ status: 'success' });
    expect(busy.bodies).toHaveLength(2);
    expect(await toRejecting.send(DATA, 10_000)).toMatchObject({ status: 'failure', error: { message: 'the collector answered 400 Bad Request' } });
    expect(rejecting.bodies).toHaveLength(1);
    expect(toRejecting.refusing).toBe(false);
  });

  it('gives up at once on a hanging collector when shut down, and sends nothing after', async () => {
    const hanging = await startCollector(() => undefined);
    cleanup.push(() => hanging.close());
    const sender = transport(hanging.url);
    const pending = sender.send(DATA, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 100)); // let the request reach the collector
    const stopped = Date.now();
    sender.shutdown();
    expect(await pending).toMatchObject({ status: 'failure' });
    expect(Date.now() - stopped).toBeLessThan(200);
    expect(await sender.send(DATA, 10_000)).toMatchObject({ status: 'failure', error: { message: 'telemetry has shut down' } });
    expect(hanging.bodies).toHaveLength(1);
  });

  it('times a request out after the export timeout', async () => {
    const hanging = await startCollector(() => undefined);
    cleanup.push(() => hanging.close());
    const sender = transport(hanging.url);
    cleanup.push(() => sender.shutdown());
    const answer = await sender.send(DATA, 200);
    // the attempt gets what is left of the 200 ms budget, so the figure may read a millisecond or two less
    expect(answer.status === 'failure' ? String(answer.error) : answer.status).toMatch(/no answer from the collector within \d+ ms$/);
  });
});
