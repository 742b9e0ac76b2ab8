import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { requestHash } from './run-recorder.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

describe('requestHash', () => {
  it('is the sha256 of the request as JSON with sorted keys, as recordings made before hashed it', () => {
    const request = {
      params: { temperature: 0, max_tokens: 200, stop: undefined, tools: [{ b: 1, a: [2, undefined] }] },
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'naïve "quotes" \n ✓' },
      ],
      model: 'm',
    };
    const text =
      '{"messages":[{"content":"be brief","role":"system"},{"content":"naïve \\"quotes\\" \\n ✓","role":"user"}],"model":"m","params":{"max_tokens":200,"temperature":0,"tools":[{"a":[2,null],"b":1}]}}';
    expect(requestHash(request as never)).toBe(sha256(text));
  });

  it('hashes every text as its JSON: plain, with escapes, with emoji and with a lone surrogate', () => {
    for (const content of ['plain text of a prompt', 'tab\there', 'emoji 🙂 pair', 'lone \ud800 half', 'back\\slash', '']) {
      const request = { model: 'm', messages: [{ role: 'user', content }], params: {} };
      expect(requestHash(request as never)).toBe(sha256(`{"messages":[{"content":${JSON.stringify(content)},"role":"user"}],"model":"m","params":{}}`));
    }
  });

  it('does not depend on the order fields were built in', () => {
    const a = requestHash({ model: 'm', messages: [{ role: 'user', content: 'x' }], params: { a: 1, b: 2 } });
    const b = requestHash({ params: { b: 2, a: 1 }, messages: [{ content: 'x', role: 'user' }], model: 'm' });
    expect(a).toBe(b);
  });
});
