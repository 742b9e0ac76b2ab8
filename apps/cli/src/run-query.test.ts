import { describe, expect, it } from 'vitest';
import { pastTime, usdAmount } from './run-query.js';

const NOW = Date.parse('2026-11-25T12:00:00.000Z');

describe('the options of tierflow runs', () => {
  it('take a time as an ISO time or how long ago', () => {
    expect(pastTime('2h', NOW)).toBe(NOW - 2 * 3_600_000);
    expect(pastTime('90s', NOW)).toBe(NOW - 90_000);
    expect(pastTime('15m', NOW)).toBe(NOW - 15 * 60_000);
    expect(pastTime('1.5d', NOW)).toBe(NOW - 36 * 3_600_000);
    expect(pastTime('1w', NOW)).toBe(NOW - 7 * 86_400_000);
    expect(pastTime('2026-11-25T09:00:00Z', NOW)).toBe(Date.parse('2026-11-25T09:00:00Z'));
    expect(pastTime('2026-11-24', NOW)).toBe(Date.parse('2026-11-24'));
    for (const bad of ['yesterday', '2', '2 hours', '', '12:00']) expect(() => pastTime(bad, NOW), bad).toThrow(/ISO time/);
  });

  it('take a cost in USD', () => {
    expect(usdAmount('0.05')).toBe(0.05);
    expect(usdAmount('$1')).toBe(1);
    for (const bad of ['', 'cheap', '-1']) expect(() => usdAmount(bad), bad).toThrow(/USD/);
  });
});
