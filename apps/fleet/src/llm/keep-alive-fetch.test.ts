import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { keepAliveFetch } from './keep-alive-fetch.js';
import { unreachableCause } from './unreachable.js';

/** A server on a free port answering with `handle`; it counts the connections it accepted. */
async function serve(handle: (request: IncomingMessage, response: ServerResponse, body: string) => void): Promise<{ url: string; server: Server; connections: () => number }> {
  let connections = 0;
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => handle(request, response, body));
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, connections: () => connections };
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve).closeAllConnections())));
});

describe('keepAliveFetch', () => {
  it('sends the method, headers and body, answers with status, headers and body, and keeps the connection for the next request', async () => {
    const seen: string[] = [];
    const { url, connections } = await serve((request, response, body) => {
      seen.push(`${request.method} ${request.url} ${request.headers.authorization} ${body}`);
      response.writeHead(201, { 'content-type': 'application/json', 'x-request-id': 'r-1' }).end('{"ok":true}');
    });
    const fetch = keepAliveFetch();
    for (let i = 0; i < 2; i++) {
      const answer = await fetch(`${url}/v1/chat`, { method: 'POST', headers: new Headers({ authorization: 'Bearer k' }), body: '{"a":1}' });
      expect(answer.status).toBe(201);
      expect(answer.headers.get('x-request-id')).toBe('r-1');
      expect(await answer.json()).toEqual({ ok: true });
    }
    expect(seen).toEqual(['POST /v1/chat Bearer k {"a":1}', 'POST /v1/chat Bearer k {"a":1}']);
    expect(connections()).toBe(1);
  });

  it('keeps every connection of a burst wider than Node’s default of 256 idle ones for the next burst', async () => {
    const WIDE = 300;
    let held: ServerResponse[] = [];
    const { url, connections } = await serve((_request, response) => {
      held.push(response);
      // Answered together once the whole burst is in, so all of it is in flight at once.
      if (held.length === WIDE) for (const waiting of held.splice(0)) waiting.writeHead(200).end('{}');
    });
    const fetch = keepAliveFetch();
    for (let burst = 0; burst < 2; burst++) {
      held = [];
      const answers = await Promise.all(Array.from({ length: WIDE }, () => fetch(`${url}/v1/chat`, { method: 'POST', body: '{}' })));
      await Promise.all(answers.map((answer) => answer.text()));
    }
    expect(connections()).toBe(WIDE);
  });

  it('decompresses an answer the server compressed, and answers 204 with no body', async () => {
    const { url } = await serve((request, response) => {
      if (request.url === '/none') response.writeHead(204).end();
      else response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipSync('{"zipped":true}'));
    });
    const fetch = keepAliveFetch();
    expect(await (await fetch(`${url}/zip`)).json()).toEqual({ zipped: true });
    const empty = await fetch(`${url}/none`);
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
  });

  it('hands an event stream on as it arrives', async () => {
    let finish: (() => void) | undefined;
    const { url } = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: first\n\n');
      finish = () => response.end('data: [DONE]\n\n');
    });
    const answer = await keepAliveFetch()(`${url}/stream`, { method: 'POST', body: '{}' });
    const reader = answer.body!.getReader();
    const text = async (): Promise<string> => new TextDecoder().decode((await reader.read()).value as Uint8Array);
    // The first event is read while the server still holds the rest back.
    expect(await text()).toBe('data: first\n\n');
    finish!();
    expect(await text()).toBe('data: [DONE]\n\n');
  });

  it('stops at once when its signal aborts, with an AbortError', async () => {
    const { url } = await serve(() => undefined);
    const controller = new AbortController();
    const answer = keepAliveFetch()(`${url}/slow`, { method: 'POST', body: '{}', signal: controller.signal });
    controller.abort();
    await expect(answer).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('fails a connection refused with the code that says nothing was sent', async () => {
    const { url, server } = await serve(() => undefined);
    await new Promise((resolve) => server.close(resolve));
    const error: unknown = await keepAliveFetch()(`${url}/gone`).catch((failure: unknown) => failure);
    expect(unreachableCause(error)).toBe('connection refused');
  });

  it('sends a request once more on a new connection when the server closed the one it reused before reading it', async () => {
    let served = 0;
    const { url, connections } = await serve((request, response) => {
      served++;
      // The second request on the first connection meets a connection the server drops.
      if (served === 2) request.socket.destroy();
      else response.writeHead(200, { 'content-type': 'application/json' }).end(`{"n":${served}}`);
    });
    const fetch = keepAliveFetch();
    expect(await (await fetch(`${url}/a`, { method: 'POST', body: '{}' })).json()).toEqual({ n: 1 });
    expect(await (await fetch(`${url}/b`, { method: 'POST', body: '{}' })).json()).toEqual({ n: 3 });
    expect(connections()).toBe(2);
  });
});
