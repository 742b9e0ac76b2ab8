import { describe, expect, it } from 'vitest';
import { DEFAULT_WEBHOOK_ATTEMPTS, parseRetryAfter, resolveNotifyOptions, responseVerdict, retryDelayMs } from './delivery-policy.js';

describe('resolveNotifyOptions', () => {
  it('fills every event type and the defaults', () => {
    const options = resolveNotifyOptions({ subscriptions: [{ url: 'https://example.test/hook', secret: 's' }] });
    expect(options.subscriptions).toEqual([
      { url: 'https://example.test/hook', events: ['review', 'question', 'blocked', 'done', 'security'], secret: 's', maxAttempts: DEFAULT_WEBHOOK_ATTEMPTS, timeoutMs: 10_000 },
    ]);
    expect(options.baseDelayMs).toBe(1_000);
    expect(options.maxDelayMs).toBe(600_000);
  });

  it('keeps the events asked for, once each', () => {
    const options = resolveNotifyOptions({ subscriptions: [{ url: 'http://127.0.0.1:9/x', secret: 's', events: ['done', 'done', 'review'], maxAttempts: 3 }] });
    expect(options.subscriptions[0]).toMatchObject({ events: ['done', 'review'], maxAttempts: 3 });
  });

  it('refuses what it cannot use, naming each problem', () => {
    expect(() => resolveNotifyOptions({ subscriptions: [{ url: 'ftp://x', secret: '' }] })).toThrow(/subscriptions\.0\.url.*subscriptions\.0\.secret/);
    expect(() => resolveNotifyOptions({ subscriptions: [{ url: 'https://x.test', secret: 's', events: ['nope' as 'done'] }] })).toThrow(/invalid notify options/);
  });
});

describe('responseVerdict', () => {
  it.each([
    [200, 'delivered'],
    [204, 'delivered'],
    [408, 'retry'],
    [429, 'retry'],
    [500, 'retry'],
    [503, 'retry'],
    [301, 'give_up'],
    [400, 'give_up'],
    [401, 'give_up'],
    [404, 'give_up'],
  ] as const)('%i → %s', (status, verdict) => {
    expect(responseVerdict(status)).toBe(verdict);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-29T12:00:00Z');
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('7', now)).toBe(7_000);
    expect(parseRetryAfter('Sun, 29 Nov 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Sun, 29 Nov 2026 11:00:00 GMT', now)).toBe(0);
  });
  it('is null for none or nonsense', () => {
    expect(parseRetryAfter(null, now)).toBeNull();
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter('-3', now)).toBeNull();
  });
});

describe('retryDelayMs', () => {
  const options = { baseDelayMs: 1_000, maxDelayMs: 60_000 };
  it('doubles each attempt, between half and all of it', () => {
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs(attempt, options, () => 0))).toEqual([500, 1_000, 2_000, 4_000]);
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs(attempt, options, () => 1))).toEqual([1_000, 2_000, 4_000, 8_000]);
  });
  it('is capped, however many attempts', () => {
    expect(retryDelayMs(40, options, () => 1)).toBe(60_000);
    expect(retryDelayMs(1_000, options, () => 0.5)).toBe(45_000);
  });
  it('takes the receiver’s Retry-After in its place, capped alike', () => {
    expect(retryDelayMs(1, options, () => 1, 5_000)).toBe(5_000);
    expect(retryDelayMs(1, options, () => 1, 3_600_000)).toBe(60_000);
  });
});
