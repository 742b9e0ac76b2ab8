import { describe, expect, it } from 'vitest';
import { canonicalJson, signingInput } from './canonical.js';

describe('canonicalJson', () => {
  it('sorts keys at every depth and drops whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { f: true, e: null }], c: 'x' } })).toBe('{"a":{"c":"x","d":[3,{"e":null,"f":true}]},"b":1}');
  });

  it('is the same text for the same value, whatever the key order or a JSON round trip', () => {
    const value = { payload: { confidence: 0.92, summary: 'é\n"quoted"' }, id: 'msg-1', list: [1.5, -0, 1e21] };
    const reordered = { list: [1.5, 0, 1e21], id: 'msg-1', payload: { summary: 'é\n"quoted"', confidence: 0.92 } };
    expect(canonicalJson(value)).toBe(canonicalJson(reordered));
    expect(canonicalJson(JSON.parse(JSON.stringify(value)))).toBe(canonicalJson(value));
  });

  it('orders keys by UTF-16 code units, as RFC 8785 does', () => {
    expect(canonicalJson({ '\u20ac': 1, '\r': 2, '\ud83d\ude00': 3, '1': 4, a: 5 })).toBe('{"\\r":2,"1":4,"a":5,"€":1,"😀":3}');
  });

  it('leaves out undefined members, as JSON does, and refuses what JSON cannot hold', () => {
    expect(canonicalJson({ a: undefined, b: [undefined] })).toBe('{"b":[null]}');
    expect(() => canonicalJson({ a: Number.NaN })).toThrow(TypeError);
    expect(() => canonicalJson({ a: () => 1 })).toThrow(TypeError);
  });

  it('signs everything but the signature itself', () => {
    expect(signingInput({ id: 'x', signature: { value: 'anything' }, version: '1.0.0' })).toBe('{"id":"x","version":"1.0.0"}');
  });
});
