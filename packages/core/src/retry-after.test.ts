import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from './retry-after.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-15T10:30:00Z');

  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Wed, 15 Jan 2025 10:30:02 GMT', now)).toBe(2000);
    expect(parseRetryAfter('Wed, 15 Jan 2025 10:29:00 GMT', now)).toBe(0);
  });

  it('ignores what it cannot read', () => {
    for (const header of [undefined, '', 'soon', '-1', '1.5']) expect(parseRetryAfter(header, now)).toBeUndefined();
  });
});
