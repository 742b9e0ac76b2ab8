import { describe, expect, it } from 'vitest';
import { bounded, cutText, digestOf, isDigest, REDACTED } from './bounded.js';

describe('a value made fit to record', () => {
  it('keeps small JSON as it is', () => {
    const value = { messages: [{ role: 'user', content: 'hi' }], temperature: 0.2, n: null };
    expect(bounded(value)).toEqual(value);
  });

  it('redacts fields named like credentials, wherever they are', () => {
    expect(bounded({ api_key: 'sk-1', headers: { Authorization: 'Bearer x', 'x-api-key': 'k' }, nested: [{ password: 'p', token: 't' }], tokens_in: 3 })).toEqual({
      api_key: REDACTED,
      headers: { Authorization: REDACTED, 'x-api-key': REDACTED },
      nested: [{ password: REDACTED, token: REDACTED }],
      // A count named like tokens is no credential.
      tokens_in: 3,
    });
  });

  it('cuts a long text with a note of its full size, on a character boundary', () => {
    expect(cutText('abcdef', 4)).toBe('abcd… [cut: 6 bytes in all]');
    // 'é' is two bytes: a cut inside it keeps none of it.
    expect(cutText('aébc', 2)).toBe('a… [cut: 5 bytes in all]');
    expect(bounded({ content: 'x'.repeat(50) }, { maxText: 10, maxBytes: 1_000 })).toEqual({ content: `${'x'.repeat(10)}… [cut: 50 bytes in all]` });
  });

  it('records a whole still too large by its digest, and the same value always by the same digest', () => {
    const value = { parts: Array.from({ length: 100 }, (_, index) => `part ${index}`) };
    const fitted = bounded(value, { maxText: 100, maxBytes: 200 });
    expect(isDigest(fitted)).toBe(true);
    expect(fitted).toEqual(digestOf(value));
    expect(digestOf(value).$digest.bytes).toBe(JSON.stringify(value).length);
    expect(digestOf({ a: 1 })).not.toEqual(digestOf({ a: 2 }));
  });

  it('takes what JSON cannot hold as JSON would', () => {
    expect(bounded({ a: undefined, b: Number.NaN, c: [Infinity] })).toEqual({ b: null, c: [null] });
  });
});
