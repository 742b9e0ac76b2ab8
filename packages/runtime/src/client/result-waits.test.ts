import { redisClient, uniquePrefix, waitFor } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { describe, expect, it } from 'vitest';
import { buildRootOutcome } from '../messages/messages.js';
import { ResultWaits, type ResultWaitsOptions } from './result-waits.js';

const silent = { info: () => undefined, warn: () => undefined };

describe('ResultWaits, on a real Redis', () => {
  const db = usePrivateRedis();

  /** Waits on a fresh prefix of the private Redis, with `options` over the defaults. */
  function waitsOn(prefix: string, options: Partial<ResultWaitsOptions>): ResultWaits {
    return new ResultWaits({
      redis: db.redis,
      listener: redisClient(db.server.url),
      eventsKey: `${prefix}:monitor:events`,
      jobKey: (id) => `${prefix}:monitor:${id}`,
      signing: null,
      log: silent,
      ...options,
    });
  }

  /** What BullMQ's completion of a root writes in its job record. */
  async function completeRecord(prefix: string, rootId: string, returnvalue: string): Promise<void> {
    await db.redis.hset(`${prefix}:monitor:${rootId}`, 'timestamp', Date.now(), 'finishedOn', Date.now(), 'returnvalue', returnvalue);
  }

  const outcomeOf = (rootId: string, summary: string) => buildRootOutcome(rootId, `${rootId}.0-0`, { status: 'success', summary, confidence: 0.9 }, 1, Date.now());

  it("takes a completed event as a wake-up: the root's own record gives the outcome", async () => {
    const prefix = uniquePrefix('waits');
    const eventsKey = `${prefix}:monitor:events`;
    // No reconciliation within the test: only the event makes the wait look.
    const waits = waitsOn(prefix, { reconcileIntervalMs: 3600_000 });
    try {
      await waitFor(() => waits.listening, { description: 'the listener in place' });
      waits.announce('r1');
      const waiting = waits.wait('r1', 10_000);
      await completeRecord(prefix, 'r1', JSON.stringify(outcomeOf('r1', 'from the record')));
      await db.redis.xadd(eventsKey, '*', 'event', 'completed', 'jobId', 'r1', 'returnvalue', JSON.stringify(outcomeOf('r1', 'from the event')), 'prev', 'active');
      expect((await waiting).payload.summary).toBe('from the record');
    } finally {
      waits.close();
    }
  });

  it("takes the event's outcome when the record was let go of at once (nothing finished is kept)", async () => {
    const prefix = uniquePrefix('waits');
    const waits = waitsOn(prefix, { reconcileIntervalMs: 3600_000 });
    try {
      await waitFor(() => waits.listening, { description: 'the listener in place' });
      waits.announce('r2');
      const waiting = waits.wait('r2', 10_000);
      await db.redis.xadd(`${prefix}:monitor:events`, '*', 'event', 'completed', 'jobId', 'r2', 'returnvalue', JSON.stringify(outcomeOf('r2', 'heard')), 'prev', 'active');
      expect((await waiting).payload.summary).toBe('heard');
    } finally {
      waits.close();
    }
  });

  it("never takes another run's outcome: not from an event, not from the record", async () => {
    const prefix = uniquePrefix('waits');
    const eventsKey = `${prefix}:monitor:events`;
    const warnings: string[] = [];
    const waits = waitsOn(prefix, { reconcileIntervalMs: 3600_000, log: { info: () => undefined, warn: (message) => void warnings.push(message) } });
    try {
      await waitFor(() => waits.listening, { description: 'the listener in place' });
      waits.announce('r3');
      const waiting = waits.wait('r3', 10_000).catch((error: unknown) => error);
      await db.redis.hset(`${prefix}:monitor:r3`, 'timestamp', Date.now());
      await db.redis.xadd(eventsKey, '*', 'event', 'completed', 'jobId', 'r3', 'returnvalue', JSON.stringify(outcomeOf('another', 'not yours')), 'prev', 'active');
      await waitFor(() => warnings.some((warning) => warning.includes('not the outcome of run r3')), { description: 'the event refused' });
      await completeRecord(prefix, 'r3', JSON.stringify(outcomeOf('another', 'not yours either')));
      await db.redis.xadd(eventsKey, '*', 'event', 'completed', 'jobId', 'r3', 'returnvalue', 'x', 'prev', 'active');
      expect(await waiting).toMatchObject({ code: 'root_outcome_invalid', message: expect.stringContaining('not the outcome of run r3') as string });
    } finally {
      waits.close();
    }
  });

  it('a default limit is not up while the run waits for a person, nor before the run has had its whole timeout since the last answer', async () => {
    const prefix = uniquePrefix('waits');
    const eventsKey = `${prefix}:monitor:events`;
    const startedAt = Date.now();
    const looks: Record<string, number[]> = { asks: [], answered: [] };
    const waits = waitsOn(prefix, {
      reconcileIntervalMs: 300,
      // 'asks' waits for a person at its first look and is answered by the second; 'answered' was answered 0.8 s in.
      personWait: (rootId) => {
        const seen = looks[rootId]!.push(Date.now() - startedAt);
        if (rootId === 'answered') return Promise.resolve({ waiting: false, lastAnswerAt: startedAt + 800 });
        return Promise.resolve(seen === 1 ? { waiting: true, lastAnswerAt: null } : { waiting: false, lastAnswerAt: Date.now() - 100 });
      },
    });
    try {
      // Objectives of 100 ms: a default limit of 100 ms and the 5 s grace.
      for (const id of ['asks', 'answered']) await db.redis.hset(`${prefix}:monitor:${id}`, 'timestamp', startedAt, 'data', JSON.stringify({ objective: { timeout_ms: 100 } }));
      const asks = waits.wait('asks');
      asks.catch(() => undefined);
      const answered = waits.wait('answered').catch((error: unknown) => ({ error, after: Date.now() - startedAt }));
      // Answered 0.8 s in, it ends 5.1 s after that, not at its first limit.
      expect(await answered).toMatchObject({ error: { code: 'wait_timeout' }, after: expect.any(Number) as number });
      expect(((await answered) as { after: number }).after).toBeGreaterThanOrEqual(5_900);
      expect(looks.answered![0]).toBeGreaterThanOrEqual(5_100);
      // The one that waited was looked at twice, and still waits: its answer came just now.
      expect(looks.asks).toHaveLength(2);
      const outcome = buildRootOutcome('asks', 'asks.0-0', { status: 'success', summary: 'answered', confidence: 0.9 }, 1, Date.now());
      await completeRecord(prefix, 'asks', JSON.stringify(outcome));
      await db.redis.xadd(eventsKey, '*', 'event', 'completed', 'jobId', 'asks', 'returnvalue', JSON.stringify(outcome), 'prev', 'active');
      expect((await asks).payload.summary).toBe('answered');
    } finally {
      waits.close();
    }
  }, 15_000);
});
