import { describe, expect, it } from 'vitest';
import { clientKey, FailureThrottle } from './failure-throttle.js';

describe('FailureThrottle', () => {
  const limits = { failures: 3, windowMs: 3_000, maxClients: 2 };

  it('lets a client fail `failures` times, then makes it wait, one more try per window / failures', () => {
    const throttle = new FailureThrottle(limits);
    for (let failure = 0; failure < 3; failure += 1) {
      expect(throttle.waitMs('a', 0)).toBe(0);
      throttle.fail('a', 0);
    }
    expect(throttle.waitMs('a', 0)).toBe(1_000);
    expect(throttle.waitMs('a', 400)).toBe(600);
    expect(throttle.waitMs('a', 1_000)).toBe(0);
    throttle.fail('a', 1_000);
    expect(throttle.waitMs('a', 1_000)).toBe(1_000);
    // Another client is not held up by it.
    expect(throttle.waitMs('b', 1_000)).toBe(0);
  });

  it('forgets a client once its failures have all come back, and the longest unseen first past maxClients', () => {
    const throttle = new FailureThrottle(limits);
    throttle.fail('a', 0);
    expect(throttle.waitMs('a', 1_000)).toBe(0);
    expect(throttle.size).toBe(0);
    for (const client of ['a', 'b', 'c']) for (let failure = 0; failure < 3; failure += 1) throttle.fail(client, 0);
    expect(throttle.size).toBe(2);
    expect(throttle.waitMs('a', 0)).toBe(0);
    expect(throttle.waitMs('c', 0)).toBe(1_000);
  });

  it('counts an IPv6 client by its /64', () => {
    expect(clientKey('2001:db8:1:2:aaaa::1')).toBe(clientKey('2001:db8:1:2::ffff'));
    expect(clientKey('2001:db8:1:2::1')).not.toBe(clientKey('2001:db8:1:3::1'));
    expect(clientKey('203.0.113.9')).toBe('203.0.113.9');
    const throttle = new FailureThrottle(limits);
    for (let failure = 0; failure < 3; failure += 1) throttle.fail(`2001:db8:1:2::${failure + 1}`, 0);
    expect(throttle.waitMs('2001:db8:1:2::99', 0)).toBeGreaterThan(0);
  });
});
