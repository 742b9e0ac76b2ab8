import { describe, expect, it } from 'vitest';
import { outageReportDueMs, outageReports } from './outage-reports.js';

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });

describe('outageReports', () => {
  it('says so as an outage starts, then after 10 s, 30 s, 1 min, 2 min, 5 min and every 5 min, not on every retry', () => {
    const said: { at: number; message: string }[] = [];
    let clock = 0;
    const reports = outageReports(
      (message) => said.push({ at: clock, message }),
      'redis://127.0.0.1:9',
      false,
      () => clock,
    );
    // ioredis retries every 2 s once its backoff is full.
    for (clock = 0; clock <= 20 * 60_000; clock += 2_000) reports.failed(refused);
    expect(said.map(({ at }) => at / 1000)).toEqual([0, 10, 30, 60, 120, 300, 600, 900, 1200]);
    expect(said[0]!.message).toBe('redis redis://127.0.0.1:9 unreachable (connection refused (is redis-server running, on that port?)); retrying');
    expect(said[1]!.message).toMatch(/^redis redis:\/\/127\.0\.0\.1:9 still unreachable after 10 s \(connection refused/);
  });

  it('starts again with the next outage', () => {
    const said: number[] = [];
    let clock = 0;
    const reports = outageReports(
      () => said.push(clock),
      'here',
      false,
      () => clock,
    );
    reports.failed(refused);
    clock = 4_000;
    reports.failed(refused);
    reports.recovered();
    clock = 5_000;
    reports.failed(refused);
    expect(said).toEqual([0, 5_000]);
  });

  it('spaces the reports past the schedule by its last step', () => {
    expect([0, 4, 5, 6].map(outageReportDueMs)).toEqual([10_000, 300_000, 600_000, 900_000]);
  });
});
