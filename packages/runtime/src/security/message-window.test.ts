import { describe, expect, it } from 'vitest';
import { checkMessageTime } from './message-window.js';

const T = Date.parse('2025-01-15T10:30:00Z');
const SKEW = 300_000;

describe('the clock window of a signed message', () => {
  it('accepts a message enqueued as it was signed, however long it then waits', () => {
    expect(checkMessageTime(T, T + 3, T + 5, SKEW)).toBeNull();
    expect(checkMessageTime(T, T + 3, T + 6 * 3600_000, SKEW)).toBeNull();
  });

  it('accepts clocks up to the window apart, either way', () => {
    expect(checkMessageTime(T, T + SKEW, T + SKEW, SKEW)).toBeNull();
    expect(checkMessageTime(T + SKEW, T, T, SKEW)).toBeNull();
  });

  it('refuses a copy enqueued again after the window', () => {
    expect(checkMessageTime(T, T + SKEW + 1, T + SKEW + 1, SKEW)?.code).toBe('message_stale');
    expect(checkMessageTime(T, T + 3600_000, T + 3600_000, SKEW)?.reason).toMatch(/signed at 2025-01-15T10:30:00.000Z but enqueued at 2025-01-15T11:30:00.000Z/);
  });

  it("refuses a message dated beyond the window ahead of the receiver's clock", () => {
    expect(checkMessageTime(T + SKEW + 1, T + SKEW + 1, T, SKEW)?.code).toBe('message_from_future');
  });

  it('refuses a message without a readable time', () => {
    expect(checkMessageTime(Number.NaN, T, T, SKEW)?.code).toBe('message_stale');
  });
});
