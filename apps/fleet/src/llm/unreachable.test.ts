import { describe, expect, it } from 'vitest';
import { endpointName, unreachableCause, unreachableDelayMs } from './unreachable.js';

/** An error as the `openai` client throws it: its own, wrapping fetch's, wrapping the socket's. */
function wrapped(socket: object): Error {
  return new Error('Connection error.', { cause: new TypeError('fetch failed', { cause: socket }) });
}

describe('an endpoint that cannot be reached', () => {
  it.each<[string, unknown, string | null]>([
    ['connection refused', wrapped({ code: 'ECONNREFUSED' }), 'connection refused'],
    ['an unknown host', wrapped({ code: 'ENOTFOUND' }), 'unknown host'],
    ['a failing DNS', wrapped({ code: 'EAI_AGAIN' }), 'unknown host'],
    ['TLS spoken to a plain port', wrapped({ code: 'ERR_SSL_WRONG_VERSION_NUMBER' }), 'TLS failure'],
    ['a self-signed certificate', wrapped({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }), 'TLS failure: untrusted certificate'],
    ['a name the certificate does not cover', wrapped({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' }), 'TLS failure'],
    ['every address of a host refusing', wrapped(new AggregateError([{ code: 'ECONNREFUSED' }, { code: 'ECONNREFUSED' }])), 'connection refused'],
    ['a connection reset mid-request (it may have been sent)', wrapped({ code: 'ECONNRESET' }), null],
    ['the socket closed mid-answer', wrapped({ code: 'UND_ERR_SOCKET' }), null],
    ['an abort', new DOMException('aborted', 'AbortError'), null],
    ['no error at all', undefined, null],
  ])('%s: %j', (_name, error, cause) => {
    expect(unreachableCause(error)).toBe(cause);
  });

  it('waits 1 s, then 2 s, between tries', () => {
    expect([1, 2].map(unreachableDelayMs)).toEqual([1_000, 2_000]);
  });

  it.each([
    ['http://127.0.0.1:8000/v1', 'http://127.0.0.1:8000/v1'],
    ['https://user:secret@api.example.com/v1/', 'https://api.example.com/v1'],
    ['https://api.example.com/v1?key=secret#frag', 'https://api.example.com/v1'],
    ['not a url', 'an endpoint whose URL does not parse'],
  ])('names %s as %s', (url, name) => {
    expect(endpointName(url)).toBe(name);
  });
});
