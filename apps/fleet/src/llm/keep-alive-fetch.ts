import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';

/** How long an idle connection is kept: under the 5 s most model servers (uvicorn, Node) keep one, so the server seldom closes it first. */
export const IDLE_SOCKET_MS = 4_000;
/** How long connecting may take before the endpoint counts as unreachable: what Node's own fetch allows. */
export const CONNECT_TIMEOUT_MS = 10_000;
/** The code of a connection not made within {@link CONNECT_TIMEOUT_MS}: nothing was sent. */
export const CONNECT_TIMEOUT_CODE = 'ERR_TIERFLOW_CONNECT_TIMEOUT';

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * A `fetch` for the `openai` client over Node's own HTTP, with a keep-alive agent per scheme:
 * one model call costs half the CPU of the built-in fetch's and holds about 17 KB less while
 * it waits for its answer (test/bench/RESULTS.md), since the answer is read as a Node stream and
 * made into a Response only once it is whole. An event stream (a streamed answer) is handed on as
 * it arrives. What it does not do, it leaves to the built-in fetch: a Request object, a body
 * that is a stream or a form, a scheme other than http and https. Redirects are not followed
 * (a model endpoint has none), an answer compressed though none was asked for is decompressed,
 * and a request that meets a reset on a connection it reused is sent once more on a new one, as
 * Node advises, since the server closed it before reading anything.
 */
export function keepAliveFetch(): Fetch {
  // No cap on idle connections (Node's is 256): there are never more than the calls once open at
  // once, and the idle timeout closes them; a cap makes a Fleet with a thousand calls in flight
  // close and reopen connections in every burst (a fifth of its socket work, bench:fleet).
  const options = { keepAlive: true, timeout: IDLE_SOCKET_MS, scheduling: 'lifo', maxFreeSockets: Infinity } as const;
  const agents = { 'http:': new http.Agent(options), 'https:': new https.Agent(options) };
  return (input, init = {}) => {
    const url = input instanceof Request ? null : new URL(input);
    const { body } = init;
    const plainBody = body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array;
    if (url === null || !plainBody || (url.protocol !== 'http:' && url.protocol !== 'https:')) return fetch(input, init);
    const send = (retry: boolean): Promise<Response> =>
      new Promise<Response>((resolve, reject) => {
        const transport = url.protocol === 'https:' ? https : http;
        const request = transport.request(url, {
          method: init.method ?? 'GET',
          headers: headerRecord(init.headers),
          agent: agents[url.protocol as 'http:' | 'https:'],
          signal: init.signal ?? undefined,
        });
        let answered = false;
        request.on('socket', (socket) => {
          if (!socket.connecting) return;
          const timer = setTimeout(() => request.destroy(Object.assign(new Error(`connect timed out after ${CONNECT_TIMEOUT_MS} ms`), { code: CONNECT_TIMEOUT_CODE })), CONNECT_TIMEOUT_MS);
          socket.once('connect', () => clearTimeout(timer));
          socket.once('close', () => clearTimeout(timer));
        });
        request.on('error', (error: NodeJS.ErrnoException) => {
          if (answered) return;
          if (retry && request.reusedSocket && error.code === 'ECONNRESET') resolve(send(false));
          else reject(error);
        });
        request.on('response', (response) => {
          answered = true;
          toResponse(response).then(resolve, reject);
        });
        request.end(body ?? undefined);
      });
    return send(true);
  };
}

/** The headers as Node takes them; the built-in fetch's `Headers`, a list or a record alike. */
function headerRecord(headers: RequestInit['headers']): Record<string, string> {
  const record: Record<string, string> = {};
  if (headers !== undefined) new Headers(headers).forEach((value, name) => (record[name] = value));
  return record;
}

/** A Response from Node's: whole, or as it arrives for an event stream; decompressed where the server compressed it. */
async function toResponse(response: http.IncomingMessage): Promise<Response> {
  const headers = new Headers();
  for (let i = 0; i + 1 < response.rawHeaders.length; i += 2) headers.append(response.rawHeaders[i]!, response.rawHeaders[i + 1]!);
  const status = response.statusCode ?? 0;
  // The built-in fetch refuses these too; an answer cannot have them.
  if (status < 200 || status > 599) {
    response.destroy();
    throw new Error(`the server answered with status ${status}, which is no HTTP answer`);
  }
  const init = { status, statusText: response.statusMessage ?? '', headers };
  const decoder = decoderOf(headers.get('content-encoding'));
  const stream: Readable = decoder ? response.pipe(decoder) : response;
  if (decoder) {
    response.once('error', (error) => decoder.destroy(error));
    headers.delete('content-encoding');
    headers.delete('content-length');
  }
  if (NO_BODY.has(status)) {
    response.resume();
    return new Response(null, init);
  }
  if (headers.get('content-type')?.includes('text/event-stream')) return new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, init);
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return new Response(Buffer.concat(chunks), init);
}

const NO_BODY = new Set([204, 205, 304]);

function decoderOf(encoding: string | null): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | null {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return zlib.createInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    default:
      return null;
  }
}
