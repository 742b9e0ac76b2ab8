import { describe, expect, it } from 'vitest';
import { age } from './age.js';
import { cost, deadline, duration, elapsed, progressText, shortId, tierSlug, tokenCount } from './format.js';

describe('the dashboard’s wording', () => {
  it('words spans of time as the command does', () => {
    expect([age(4_000), age(180_000), age(2 * 3600_000 + 1), age(5 * 86_400_000)]).toEqual(['4 s', '3 min', '2 h', '5 d']);
    expect([duration(2_440), duration(42_000), duration(-5)]).toEqual(['2.4 s', '42 s', '0.0 s']);
  });

  it('gives a node’s elapsed time, running or finished, and nothing before it starts', () => {
    const start = '2026-11-25T10:00:00.000Z';
    expect(elapsed(null, null, Date.parse(start))).toBe('');
    expect(elapsed(start, null, Date.parse(start) + 1_500)).toBe('1.5 s');
    expect(elapsed(start, '2026-11-25T10:00:03.200Z', Date.parse(start) + 60_000)).toBe('3.2 s');
  });

  it('words progress, tokens and cost', () => {
    expect(progressText({ percent: 40, note: 'loading the data', at: '' })).toBe('40% loading the data');
    expect(progressText({ percent: null, note: 'thinking', at: '' })).toBe('thinking');
    const usage = { tokens_in: 2_000, tokens_out: 410, cost_usd: 0.00420000001, llm_calls: 3 };
    expect([tokenCount(usage), cost(usage), cost({ ...usage, cost_usd: 0 })]).toEqual(['2,410', '$0.0042', '']);
  });

  it('shortens node ids to what they add to the root’s', () => {
    const root = '9f052f59-5b2f-4c7e-9a55-0b1c2d3e4f50';
    expect(shortId(root, root)).toBe('9f052f59…');
    expect(shortId(`${root}.0-0.1-0`, root)).toBe('9f052f59….0-0.1-0');
    expect(shortId('other', root)).toBe('other');
    expect(tierSlug('SPECIALIZED_FLEET')).toBe('fleet');
  });

  it('words a deadline by its time today, and with its date on another day', () => {
    const now = new Date(2026, 10, 25, 9, 30).getTime();
    expect(deadline(new Date(2026, 10, 25, 17, 5).toISOString(), now)).toBe('17:05:00');
    expect(deadline(new Date(2026, 10, 26, 9, 0).toISOString(), now)).toBe('26 Nov 09:00:00');
    expect(deadline(new Date(2027, 0, 2, 9, 0).toISOString(), now)).toBe('2 Jan 2027 09:00:00');
    expect(deadline('not a time', now)).toBe('not a time');
  });
});
