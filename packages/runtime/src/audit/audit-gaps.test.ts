import { uniquePrefix, waitFor } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { describe, expect, it } from 'vitest';
import type { TierLogger } from '../policy/handler.js';
import { readAuditTrail } from './audit-read.js';
import { AuditTrail } from './audit-trail.js';

describe('entries lost while Redis refuses writes', () => {
  const db = usePrivateRedis();

  it('are counted, logged once per kind of error, and recorded as a gap in their trail once Redis takes writes again', async () => {
    const prefix = uniquePrefix('gaps');
    const warnings: Record<string, unknown>[] = [];
    const log: TierLogger = { info: () => undefined, warn: (_message, fields) => void warnings.push(fields ?? {}) };
    const trail = new AuditTrail(db.redis, prefix, 'ABSTRACT_ARCHITECT', 60_000, log);
    const note = (rootId: string, text: string) => trail.progress(rootId, `${rootId}.0-0`, text);
    try {
      note('run-a', 'kept');
      await waitFor(async () => (await readAuditTrail(db.redis, prefix, 'run-a')).length === 1 || null, { description: 'the first entry' });
      // A replica of no master refuses every write with READONLY.
      await db.redis.replicaof('127.0.0.1', 1);
      for (let n = 0; n < 50; n++) note('run-a', `lost ${n}`);
      note('run-b', 'lost');
      await waitFor(() => trail.gaps.total === 51 || null, { description: 'every refused entry counted' });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ error: expect.stringContaining('READONLY') as unknown, lost_so_far: 1 });
      await db.redis.replicaof('NO', 'ONE');
      await waitFor(() => trail.gaps.pending === 0 || null, { description: 'the gaps recorded' });
      const a = await readAuditTrail(db.redis, prefix, 'run-a');
      expect(a.map((entry) => [entry.kind, entry.detail])).toEqual([
        ['progress', 'kept'],
        ['gap', expect.stringMatching(/^50 entries by this tier lost: READONLY/) as unknown],
      ]);
      const b = await readAuditTrail(db.redis, prefix, 'run-b');
      expect(b).toMatchObject([{ kind: 'gap', detail: expect.stringMatching(/^1 entry by this tier lost/) as unknown }]);
      // A gap opens a trail that had nothing: it gets the trail's TTL.
      expect(await db.redis.pttl(`${prefix}:audit:run-b`)).toBeGreaterThan(0);
    } finally {
      trail.gaps.stop();
      await db.redis.replicaof('NO', 'ONE');
    }
  });
});
