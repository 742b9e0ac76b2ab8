import { describe, expect, it } from 'vitest';
import { cutText, digestOf, isDigest, recordText, REDACTED } from './bounded.js';

const full = (entry: Record<string, unknown>, bounds?: { maxText: number; maxBytes: number }) => JSON.parse(recordText(entry, ['message'], 'full', bounds)) as unknown;

describe('an entry made fit to record', () => {
  it('keeps small JSON as it is', () => {
    const entry = { kind: 'call', message: { messages: [{ role: 'user', content: 'hi' }], temperature: 0.2, n: null } };
    expect(full(entry)).toEqual(entry);
  });

  it('redacts fields named like credentials, wherever they are', () => {
    expect(full({ message: { api_key: 'sk-1', headers: { Authorization: 'Bearer x', 'x-api-key': 'k' }, nested: [{ password: 'p', token: 't' }], tokens_in: 3 } })).toEqual({
      message: {
        api_key: REDACTED,
        headers: { Authorization: REDACTED, 'x-api-key': REDACTED },
        nested: [{ password: REDACTED, token: REDACTED }],
        // A count named like tokens is no credential.
        tokens_in: 3,
      },
    });
  });

  it('cuts a long text with a note of its full size, on a character boundary', () => {
    expect(cutText('abcdef', 4)).toBe('abcd… [cut: 6 bytes in all]');
    // 'é' is two bytes: a cut inside it keeps none of it.
    expect(cutText('aébc', 2)).toBe('a… [cut: 5 bytes in all]');
    expect(full({ message: { content: 'x'.repeat(50) } }, { maxText: 10, maxBytes: 1_000 })).toEqual({ message: { content: `${'x'.repeat(10)}… [cut: 50 bytes in all]` } });
  });

  it('records a heavy field by its digest when the entry is still too large, and under metadata always', () => {
    const message = { parts: Array.from({ length: 100 }, (_, index) => `part ${index}`) };
    const fitted = full({ kind: 'outcome', message }, { maxText: 100, maxBytes: 200 }) as { kind: string; message: unknown };
    expect(fitted.kind).toBe('outcome');
    expect(isDigest(fitted.message)).toBe(true);
    expect(fitted.message).toEqual(digestOf(message));
    expect(JSON.parse(recordText({ kind: 'outcome', message: { a: 1 }, at: 5 }, ['message'], 'metadata'))).toEqual({ kind: 'outcome', message: digestOf({ a: 1 }), at: 5 });
    expect(digestOf(message).$digest.bytes).toBe(JSON.stringify(message).length);
    expect(digestOf({ a: 1 })).not.toEqual(digestOf({ a: 2 }));
  });

  it('writes the same text whether or not an entry needs the replacer', () => {
    const replaced = (entry: Record<string, unknown>) => JSON.stringify(entry, (key, value: unknown) => (key === 'secret' ? REDACTED : value));
    // Nothing to redact or cut: JSON.stringify's own text, dates and all.
    const plain = { kind: 'pass', at: new Date(0), message: { ids: ['a', 'b'], n: 2, nested: { deep: [{ ok: true }] }, token_count: null } };
    expect(recordText(plain, ['message'], 'full')).toBe(JSON.stringify(plain));
    // A credential deep down, and a field named like one but empty, are found by the walk that decides.
    const hiding = { kind: 'pass', message: { list: [{ ok: 1 }, { secret: 's' }] } };
    expect(recordText(hiding, ['message'], 'full')).toBe(replaced(hiding));
    expect(recordText({ password: null, message: { token: undefined } }, ['message'], 'full')).toBe('{"password":null,"message":{}}');
  });

  it('takes what JSON cannot hold as JSON would', () => {
    expect(full({ message: { a: undefined, b: Number.NaN, c: [Infinity] } })).toEqual({ message: { b: null, c: [null] } });
  });
});
