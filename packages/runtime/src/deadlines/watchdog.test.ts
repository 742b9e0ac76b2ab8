import { delegationPayloadSchema } from '@tierflow/protocol';
import { redisClient, uniquePrefix, waitFor } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { Worker } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { controlKeys } from '../redis/keys.js';
import { JobFinder } from '../redis/job-finder.js';
import { TierCanceller } from '../cancellation/tier-canceller.js';
import { StepStore, type StepState } from '../steps/step-store.js';
import { nextWatch, parseWatchMember, runWatchdog, UNPARKED_RECHECK_MS, watchMember } from './watchdog.js';
import { WATCH_LEASE_MS, WatchdogSweeper } from './watchdog-sweeper.js';

describe('parseWatchMember', () => {
  it('reads what watchMember writes, and nothing of another shape', () => {
    const watch = { parentId: 'root.0-0.0-0', parentTier: 'ROUTING_DISPATCHER', round: 2 } as const;
    expect(parseWatchMember(watchMember(watch))).toEqual(watch);
    for (const member of ['', 'junk', '1|NOT_A_TIER|x', '1|ROUTING_DISPATCHER|', 'x|ROUTING_DISPATCHER|x', '-1|ROUTING_DISPATCHER|x', '1|ROUTING_DISPATCHER|bad id']) {
      expect(parseWatchMember(member), member).toBeNull();
    }
  });
});

describe('a watchdog whose parent is not parked when it falls due', () => {
  const db = usePrivateRedis();

  it('is kept and looked at again, so the parent that parks again on the same round is still watched', async () => {
    const { redis, server } = db;
    const prefix = uniquePrefix('watch');
    const keys = controlKeys(prefix);
    const finder = new JobFinder(redis, prefix);
    const steps = new StepStore(redis, prefix, 'dispatcher', 60_000);
    const workerRedis = redisClient(server.url);
    // A Dispatcher whose pass runs by hand: the parent is active (locked) until the test parks it.
    const dispatcher = new Worker('dispatcher', null, { connection: workerRedis, prefix, autorun: false });
    const canceller = new TierCanceller({ redis, finder, prefix, tier: 'ROUTING_DISPATCHER', party: 'dispatcher', signer: null, markTtlMs: 60_000, now: Date.now });
    const deps = { redis, keys, party: 'dispatcher' as const, finder, steps, markTtlMs: 60_000, signer: null, canceller };
    const sweeper = new WatchdogSweeper({
      redis,
      key: keys.watchdogs('dispatcher'),
      intervalMs: 50,
      parse: parseWatchMember,
      run: (watch) => runWatchdog(deps, watch, Date.now()),
      onError: () => undefined,
    });
    try {
      await finder.queue('ROUTING_DISPATCHER').add('decompose', {}, { jobId: 'p1' });
      const token = 'test-token';
      const parent = await dispatcher.getNextJob(token);
      expect(parent.id).toBe('p1');
      // The child is already overdue and no Fleet worker will ever take it.
      const child = { id: 'p1.0-0', index: 0, request: delegationPayloadSchema.parse({ task_type: 't', objective: 'o', timeout_ms: 1_000 }), deadline: Date.now() - 10_000 };
      const state: StepState = { round: 0, strategy: 'all_success', children: [child], memo: {}, answer_by: null };
      await redis.set(steps.key('p1'), JSON.stringify(state));
      await finder.queue('SPECIALIZED_FLEET').add('t', {}, { jobId: child.id, parent: { id: 'p1', queue: parent.queueQualifiedName }, ignoreDependencyOnFailure: true });
      const member = watchMember({ parentId: 'p1', parentTier: 'ROUTING_DISPATCHER', round: 0 });
      await redis.zadd(keys.watchdogs('dispatcher'), nextWatch(state, null)!, member);

      // It falls due while the parent is active: it must stay in the set, a moment ahead.
      sweeper.start();
      const score = await waitFor(
        async () => {
          const found = await redis.zscore(keys.watchdogs('dispatcher'), member);
          // Past its lease (a sweep holds it 30 s ahead while it runs): removed, or put back for later.
          const after = Number(found) - Date.now();
          return found === null || (after > 0 && after < WATCH_LEASE_MS / 2) ? { found } : null;
        },
        { description: 'a sweep of the due watchdog' },
      );
      expect(score.found).not.toBeNull();
      expect(Number(score.found) - Date.now()).toBeLessThanOrEqual(UNPARKED_RECHECK_MS);

      // The parent parks again on the same round: the watchdog gives up on the child and lets it go.
      expect(await parent.moveToWaitingChildren(token)).toBe(true);
      await waitFor(async () => (await parent.getState()) !== 'waiting-children', { description: 'the parent let go' });
      expect(await redis.get(keys.timeout('dispatcher', child.id))).not.toBeNull();
      await waitFor(async () => (await redis.zscore(keys.watchdogs('dispatcher'), member)) === null, { description: 'the watchdog done' });
    } finally {
      await sweeper.stop();
      await dispatcher.close();
      await finder.close();
      workerRedis.disconnect();
    }
  });
});
