import { describe, expect, it } from 'vitest';
import { crossSiteRefusal, isJsonType, type RequestFacts } from './cross-site.js';

const HOST = '127.0.0.1:8080';
const request = (facts: Partial<RequestFacts>): RequestFacts => ({
  method: 'POST',
  host: HOST,
  origin: undefined,
  secFetchSite: undefined,
  contentType: undefined,
  hasBody: false,
  marked: false,
  ...facts,
});
const refused = (facts: Partial<RequestFacts>, allowed: readonly string[] = []) => crossSiteRefusal(request(facts), new Set(allowed))?.status ?? null;

describe('crossSiteRefusal', () => {
  it('lets every GET, HEAD and OPTIONS through, whoever sends it', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS']) expect(refused({ method, origin: 'http://evil.example', secFetchSite: 'cross-site' })).toBeNull();
  });

  it('refuses a state-changing request a browser says comes from another site', () => {
    expect(refused({ origin: 'http://evil.example', secFetchSite: 'cross-site' })).toBe(403);
    expect(refused({ origin: 'http://evil.example' })).toBe(403);
    expect(refused({ origin: 'null' })).toBe(403);
    expect(refused({ secFetchSite: 'same-site', origin: `http://${HOST}` })).toBe(403);
    expect(refused({ secFetchSite: 'none' })).toBe(403);
    // Another port of the same machine is another origin.
    expect(refused({ origin: 'http://127.0.0.1:3000', contentType: 'application/json', hasBody: true })).toBe(403);
    expect(refused({ origin: 'http://evil.example', contentType: 'text/plain', hasBody: true })).toBe(403);
  });

  it('lets the server’s own pages through, and a configured name a proxy is reached by', () => {
    expect(refused({ origin: `http://${HOST}`, secFetchSite: 'same-origin', contentType: 'application/json', hasBody: true })).toBeNull();
    // Bull Board's bodiless actions, from its own page.
    expect(refused({ method: 'PUT', origin: `http://${HOST}`, secFetchSite: 'same-origin' })).toBeNull();
    expect(refused({ origin: 'https://tierflow.example.com', contentType: 'application/json', hasBody: true }, ['tierflow.example.com'])).toBeNull();
  });

  it('wants a body to be JSON, whoever sends it', () => {
    expect(refused({ contentType: 'text/plain', hasBody: true })).toBe(415);
    expect(refused({ contentType: 'application/x-www-form-urlencoded', hasBody: true, marked: true })).toBe(415);
    expect(refused({ hasBody: true, marked: true })).toBe(415);
    expect(refused({ contentType: 'application/json; charset=utf-8', hasBody: true })).toBeNull();
  });

  it('wants a request with no Origin and no JSON to carry X-Tierflow-Request', () => {
    expect(refused({})).toBe(403);
    expect(refused({ marked: true })).toBeNull();
    expect(refused({ contentType: 'application/json' })).toBeNull();
  });
});

describe('isJsonType', () => {
  it('knows JSON from what a form can send', () => {
    for (const type of ['application/json', 'Application/JSON; charset=utf-8', 'application/merge-patch+json']) expect([type, isJsonType(type)]).toEqual([type, true]);
    for (const type of [undefined, 'text/plain', 'text/plain; application/json', 'multipart/form-data', 'application/jsonx']) expect([type, isJsonType(type)]).toEqual([type, false]);
  });
});
