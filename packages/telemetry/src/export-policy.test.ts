import { describe, expect, it } from 'vitest';
import { classifyRequestError, classifyStatus, CollectorAvailability, MAX_RETRIES, retryDelay } from './export-policy.js';

const withCode = (code: string): Error => Object.assign(new Error(code), { code });

describe('classifyRequestError', () => {
  it('takes a refused connection or an unresolvable address for a collector that is down', () => {
    for (const code of ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']) expect(classifyRequestError(withCode(code))).toBe('unreachable');
  });

  it('retries a dropped connection, and gives up on anything else', () => {
    for (const code of ['ECONNRESET', 'EPIPE', 'ETIMEDOUT']) expect(classifyRequestError(withCode(code))).toBe('transient');
    expect(classifyRequestError(withCode('ERR_TLS_CERT_ALTNAME_INVALID'))).toBe('permanent');
    expect(classifyRequestError(new Error('no code'))).toBe('permanent');
    expect(classifyRequestError(null)).toBe('permanent');
    expect(classifyRequestError(Object.assign(new Error('odd'), { code: 7 }))).toBe('permanent');
  });
});

describe('classifyStatus', () => {
  it('accepts 2xx, retries busy answers, and drops the batch on the rest', () => {
    expect([200, 202, 299].map(classifyStatus)).toEqual(['accepted', 'accepted', 'accepted']);
    expect([429, 502, 503, 504].map(classifyStatus)).toEqual(['transient', 'transient', 'transient', 'transient']);
    expect([0, 301, 400, 404, 413, 500].map(classifyStatus)).toEqual(Array(6).fill('permanent'));
  });
});

describe('retryDelay', () => {
  const middle = () => 0.5; // no jitter

  it('backs off from 1 s by half again each time, up to 5 s', () => {
    expect([1, 2, 3, 4, 5].map((retry) => retryDelay(retry, 60_000, undefined, middle))).toEqual([1000, 1500, 2250, 3375, 5000]);
  });

  it('jitters by up to a fifth either way', () => {
    expect(retryDelay(1, 60_000, undefined, () => 0)).toBe(800);
    expect(retryDelay(1, 60_000, undefined, () => 1)).toBe(1200);
  });

  it("follows the collector's Retry-After", () => {
    expect(retryDelay(1, 60_000, 7000, middle)).toBe(7000);
  });

  it('stops when the retries are spent or the pause would outlast the deadline', () => {
    expect(retryDelay(MAX_RETRIES + 1, 60_000, undefined, middle)).toBeNull();
    expect(retryDelay(0, 60_000, undefined, middle)).toBeNull();
    expect(retryDelay(1, 999, undefined, middle)).toBeNull();
    expect(retryDelay(1, 60_000, 61_000, middle)).toBeNull();
  });
});

describe('CollectorAvailability', () => {
  it('is down from a refusal until the cool-down has passed, and up again on success', () => {
    const availability = new CollectorAvailability(5000);
    expect(availability.isDown(0)).toBe(false);
    availability.markDown(1000);
    expect(availability.isDown(1000)).toBe(true);
    expect(availability.isDown(5999)).toBe(true);
    expect(availability.isDown(6000)).toBe(false);
    availability.markDown(7000);
    availability.markUp();
    expect(availability.isDown(7001)).toBe(false);
  });
});
