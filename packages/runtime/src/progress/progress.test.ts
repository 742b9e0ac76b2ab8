import { describe, expect, it } from 'vitest';
import { progressDue, progressRecord, progressText, readProgress } from './progress.js';
import { progressUpdateSchema } from '../policy/progress-update.js';

const AT = Date.parse('2026-11-25T12:00:00.000Z');

describe('progress', () => {
  it.each([
    [null, 0, true],
    [0, 999, false],
    [0, 1_000, true],
    [5_000, 4_000, false],
  ])('after a write at %s, an update at %s is due: %s', (last, now, due) => {
    expect(progressDue(last, now, 1_000)).toBe(due);
  });

  it('records an update with its time, the percent to a tenth', () => {
    expect(progressRecord({ percent: 41.666, note: 'loading' }, AT)).toEqual({ percent: 41.7, note: 'loading', at: '2026-11-25T12:00:00.000Z' });
    expect(progressRecord({ note: 'starting' }, AT)).toMatchObject({ percent: null, note: 'starting' });
  });

  it('says a record in a few words', () => {
    expect(progressText({ percent: 40, note: 'loading the data' })).toBe('40% loading the data');
    expect(progressText({ percent: 40, note: null })).toBe('40%');
    expect(progressText({ percent: null, note: 'thinking' })).toBe('thinking');
  });

  it.each([
    [{}, 'a percent, a note, or both'],
    [{ percent: 120 }, 'percent'],
    [{ note: 'x'.repeat(201) }, 'note'],
    [{ percent: 10, eta: 3 }, 'eta'],
  ])('refuses %j', (update, problem) => {
    const parsed = progressUpdateSchema.safeParse(update);
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain(problem);
  });

  it('reads a run’s records leniently: what does not parse is left out', () => {
    const good = JSON.stringify({ percent: 50, note: null, at: '2026-11-25T12:00:00.000Z' });
    expect([...readProgress({ 'r.0-0': good, 'r.0-1': '{', 'r.0-2': JSON.stringify({ percent: 'half' }) })]).toEqual([['r.0-0', JSON.parse(good)]]);
  });
});
