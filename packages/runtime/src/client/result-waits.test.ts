import { redisClient, uniquePrefix, waitFor } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { describe, expect, it, vi } from 'vitest';
import { buildOutcome } from '../messages/messages.js';
import { ResultWaits } from './result-waits.js';

const silent = { info: () => undefined, warn: () => undefined };

describe('ResultWaits, on a real Redis', () => {
  const db = usePrivateRedis();

  it('settles a root this client announced from its event alone, with no lookup of its own', async () => {
    const prefix = uniquePrefix('waits');
    const eventsKey = `${prefix}:monitor:events`;
    const waits = new ResultWaits({
      redis: db.redis,
      listener: redisClient(db.server.url),
      eventsKey,
      jobKey: (id) => `${prefix}:monitor:${id}`,
      signing: null,
      log: silent,
      // No reconciliation within the test: any lookup would be the wait's own.
      reconcileIntervalMs: 3600_000,
    });
    try {
      await waitFor(() => waits.listening, { description: 'the listener in place' });
      const lookups = vi.spyOn(db.redis, 'pipeline');
      waits.announce('r1');
      const waiting = waits.wait('r1', 10_000);
      const outcome = buildOutcome('ABSTRACT_ARCHITECT', 'r1.0-0', { status: 'success', summary: 'done', confidence: 0.9 }, 1, Date.now());
      await db.redis.xadd(eventsKey, '*', 'event', 'completed', 'jobId', 'r1', 'returnvalue', JSON.stringify(outcome), 'prev', 'active');
      expect((await waiting).payload.summary).toBe('done');
      expect(lookups).not.toHaveBeenCalled();
    } finally {
      vi.restoreAllMocks();
      waits.close();
    }
  });
});
