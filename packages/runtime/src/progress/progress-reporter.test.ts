import type { Span } from '@opentelemetry/api';
import { uniquePrefix, waitFor } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { describe, expect, it } from 'vitest';
import type { AuditTrail } from '../audit/audit-trail.js';
import { progressReporter } from './progress-reporter.js';
import { readProgress } from './progress.js';

describe('progressReporter', () => {
  const db = usePrivateRedis();

  function setup() {
    const key = `${uniquePrefix('progress')}:progress:fleet:r1`;
    const clock = { now: Date.parse('2026-11-25T12:00:00.000Z') };
    const events: [string, unknown][] = [];
    const audited: string[] = [];
    const warnings: string[] = [];
    const report = progressReporter({
      redis: db.redis,
      key,
      rootId: 'r1',
      messageId: 'r1.0-0.0-0.0-0',
      ttlMs: 60_000,
      span: { addEvent: (name: string, attributes: unknown) => void events.push([name, attributes]) } as unknown as Span,
      audit: { progress: (_root: string, _id: string, text: string) => void audited.push(text) } as unknown as AuditTrail,
      log: { info: () => undefined, warn: (message) => void warnings.push(message) },
      now: () => clock.now,
      intervalMs: 1_000,
    });
    return { key, clock, events, audited, warnings, report };
  }

  it('keeps the latest update for the run, with an expiry, on the span and in the audit trail; one a second', async () => {
    const { key, clock, events, audited, report } = setup();
    report({ percent: 10, note: 'starting' });
    clock.now += 400;
    report({ percent: 20 }); // within the second: dropped
    clock.now += 600;
    report({ percent: 30, note: 'loading' });
    await waitFor(async () => readProgress(await db.redis.hgetall(key)).get('r1.0-0.0-0.0-0')?.percent === 30, { description: 'the second update kept' });
    expect(await db.redis.pttl(key)).toBeGreaterThan(0);
    expect(events).toEqual([
      ['progress', { 'tierflow.progress.percent': 10, 'tierflow.progress.note': 'starting' }],
      ['progress', { 'tierflow.progress.percent': 30, 'tierflow.progress.note': 'loading' }],
    ]);
    expect(audited).toEqual(['10% starting', '30% loading']);
  });

  it('drops a bad update with a warning, and never throws', () => {
    const { report, warnings, events } = setup();
    expect(() => report({ percent: 150 })).not.toThrow();
    expect(() => report(null as never)).not.toThrow();
    expect(warnings).toEqual(['dropped a progress update', 'dropped a progress update']);
    expect(events).toEqual([]);
  });
});
