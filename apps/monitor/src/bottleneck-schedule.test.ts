import { describe, expect, it } from 'vitest';
import { BottleneckSchedule } from './bottleneck-schedule.js';

const pair = (specialist: string, taskType = 'code') => ({ taskType, specialist });

describe('BottleneckSchedule', () => {
  it('ranks a pair it has never ranked at once, then known pairs at most once an interval, with every pair touched since', () => {
    const schedule = new BottleneckSchedule(5_000);
    expect(schedule.take([pair('a')], 1_000)).toEqual([pair('a')]);
    expect(schedule.take([pair('a')], 2_000)).toBeNull();
    expect(schedule.take([pair('a', 'write')], 3_000)).toEqual([pair('a'), pair('a', 'write')]);
    expect(schedule.take([pair('a')], 4_000)).toBeNull();
    expect(schedule.take([], 7_999)).toBeNull();
    expect(schedule.take([], 8_000)).toEqual([pair('a')]);
    expect(schedule.take([], 20_000)).toEqual([]);
  });

  it('ranks on every run with an interval of 0', () => {
    const schedule = new BottleneckSchedule(0);
    expect(schedule.take([pair('a')], 1_000)).toEqual([pair('a')]);
    expect(schedule.take([pair('a')], 1_000)).toEqual([pair('a')]);
  });
});
