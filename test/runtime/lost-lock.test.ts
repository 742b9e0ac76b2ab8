import { TIER_SLUGS } from '@tierflow/protocol';
import { spawnTiers, type TierProcesses } from '@tierflow/cli';
import type { OutcomeMessage } from '@tierflow/protocol';
import { readAuditTrail } from '@tierflow/runtime/admin';
import { redisClient, waitFor } from '@tierflow/testing';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { simPlan } from '../support/runs.js';

// Short locks, so a paused worker loses its job in about lock + stalled interval.
const SHORT_LOCKS = { TIERFLOW_LOCK_DURATION_MS: '1500', TIERFLOW_STALLED_INTERVAL_MS: '500' };

let deployment: Deployment | undefined;
let second: TierProcesses | undefined;
let redis: Redis | undefined;

afterEach(async () => {
  redis?.disconnect();
  deployment?.tiers.children.get('fleet')?.kill('SIGCONT');
  await second?.stop();
  await deployment?.stop();
  deployment = second = redis = undefined;
});

describe('writes after a lost lock', () => {
  it('a Fleet worker paused past its lock (SIGSTOP) writes nothing when it resumes: the records stay those of the worker that took its job over', async () => {
    deployment = await startDeployment('lost-lock', SHORT_LOCKS);
    const { client, runtime } = deployment;
    const rootId = 'lost-lock-1';
    const leafId = `${rootId}.0-0.0-0.0-0`;
    await client.enqueue(simPlan('all_success', [{ delay_ms: 2_500 }]), { rootId });
    // Its receipt goes out with the pass's first read; once it is on record, the specialist is running.
    const db = (redis = redisClient(deployment.redis.url));
    await waitFor(async () => (await readAuditTrail(db, runtime.prefix, rootId)).some((entry) => entry.by === 'SPECIALIZED_FLEET' && entry.id === leafId), {
      description: 'the leaf running',
    });

    // The first Fleet worker stops mid-run; a second one takes its job back once the lock lapses.
    const paused = deployment.tiers.children.get('fleet')!;
    paused.kill('SIGSTOP');
    const logs = deployment.logs;
    let ready = false;
    second = spawnTiers(
      { ...process.env, ...SHORT_LOCKS, OTEL_TRACES_EXPORTER: 'none', REDIS_URL: deployment.redis.url, TIERFLOW_PREFIX: runtime.prefix },
      (tier, line) => {
        logs.push(`${tier} (2nd) | ${line}`);
        if (line.includes('worker ready')) ready = true;
      },
      ['fleet'],
    );
    await waitFor(() => ready, { description: 'the second Fleet worker' });
    expect((await client.waitForResult(rootId, { timeoutMs: 30_000 })).payload.status).toBe('success');

    const fleet = new Queue('fleet', { connection: db, prefix: runtime.prefix });
    try {
      const answered = (await fleet.getJob(leafId))!.returnvalue as OutcomeMessage;
      // The paused worker resumes, finishes its run, and tries to answer: refused, writing nothing.
      paused.kill('SIGCONT');
      await waitFor(() => logs.some((line) => line.startsWith('fleet |') && line.includes('Missing lock for job') && line.includes('moveTo')), {
        timeoutMs: 15_000,
        description: `the resumed worker giving up the job; output:\n${logs.join('\n')}`,
      });
      // Its writes went with that completion, in the same script, so none of them landed either.
      const cached = await db.get(`${runtime.prefix}:beads:system/seen-messages/${TIER_SLUGS.SPECIALIZED_FLEET}/${leafId}`);
      expect(JSON.parse(cached!)).toEqual(answered);
      const sent = (await readAuditTrail(db, runtime.prefix, rootId)).filter((entry) => entry.by === 'SPECIALIZED_FLEET' && entry.direction === 'sent' && entry.correlation_id === leafId);
      expect(sent).toHaveLength(1);
    } finally {
      await fleet.close();
    }
  }, 60_000);
});
