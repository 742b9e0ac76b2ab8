import { buildRootOutcome, WAIT_GRACE_MS } from '@tierflow/runtime/admin';
import { resolveRuntimeOptions, RootWaitError, TierflowClient } from '@tierflow/runtime';
import { uniquePrefix } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { describe, expect, it } from 'vitest';

// A private Redis and no workers: nothing answers a root, so only the client's own checks end a wait.
const db = usePrivateRedis();

type Ending = { readonly error: unknown; readonly at: number };

/** How a wait ends, and when; never rejects. */
async function ending(wait: Promise<unknown>): Promise<Ending> {
  try {
    await wait;
    return { error: null, at: Date.now() };
  } catch (error) {
    return { error, at: Date.now() };
  }
}

/** A client of its own prefix, listening already: a first wait (for a root that never was) starts the listener. */
async function listeningClient(label: string): Promise<{ client: TierflowClient; prefix: string }> {
  const prefix = uniquePrefix(label);
  const client = new TierflowClient(resolveRuntimeOptions({ redisUrl: db.server.url, prefix }));
  await client.waitForResult('warm-up-no-such-root', { timeoutMs: 10_000 }).catch(() => undefined);
  return { client, prefix };
}

describe('a waiting client', () => {
  it('tells a root that never existed on a queue that exists', async () => {
    const client = new TierflowClient(resolveRuntimeOptions({ redisUrl: db.server.url, prefix: uniquePrefix('unknown') }));
    try {
      await client.enqueue({ objective: 'another root' });
      const { error } = await ending(client.waitForResult('no-such-root', { timeoutMs: 10_000 }));
      expect(error).toBeInstanceOf(RootWaitError);
      expect(error).toMatchObject({ code: 'root_not_found', rootId: 'no-such-root' });
    } finally {
      await client.close();
    }
  });

  it('says the root no longer exists once Redis is flushed under it', async () => {
    const { client } = await listeningClient('flushed');
    try {
      const rootId = await client.enqueue({ objective: 'waits for a Monitor that is not there' });
      const wait = ending(client.waitForResult(rootId));
      await db.redis.flushall();
      const flushedAt = Date.now();
      const { error, at } = await wait;
      expect(error).toBeInstanceOf(RootWaitError);
      expect(error).toMatchObject({ code: 'root_vanished', rootId });
      expect((error as Error).message).toContain('no longer exists: Redis was flushed or restarted without persistence');
      expect(at - flushedAt).toBeLessThan(15_000);
    } finally {
      await client.close();
    }
  });

  it('says the root no longer exists once Redis restarts without persistence', async () => {
    const { client } = await listeningClient('restarted');
    try {
      const rootId = await client.enqueue({ objective: 'waits for a Monitor that is not there' });
      const wait = ending(client.waitForResult(rootId, { timeoutMs: 60_000 }));
      await db.server.restart();
      const restartedAt = Date.now();
      const { error, at } = await wait;
      expect(error).toMatchObject({ code: 'root_vanished', rootId });
      expect(at - restartedAt).toBeLessThan(15_000);
    } finally {
      await client.close();
    }
  });

  it('settles a root whose end was written without an event (as if trimmed or missed)', async () => {
    const { client, prefix } = await listeningClient('no-event');
    try {
      const rootId = await client.enqueue({ objective: 'finished behind the stream' });
      const wait = ending(client.waitForResult(rootId, { timeoutMs: 20_000 }));
      // What BullMQ's finishing script writes for a completed job, less the stream entry.
      const outcome = buildRootOutcome(rootId, `${rootId}.0-0`, { status: 'success', summary: 'done elsewhere', confidence: 0.9 }, 5, Date.now());
      const now = Date.now();
      await db.redis
        .multi()
        .lrem(`${prefix}:monitor:wait`, 0, rootId)
        .zrem(`${prefix}:monitor:prioritized`, rootId)
        .zadd(`${prefix}:monitor:completed`, now, rootId)
        .hset(`${prefix}:monitor:${rootId}`, 'returnvalue', JSON.stringify(outcome), 'finishedOn', String(now))
        .exec();
      const { error } = await wait;
      expect(error).toBeNull();
      await expect(client.waitForResult(rootId, { timeoutMs: 5_000 })).resolves.toMatchObject({ id: outcome.id, payload: { status: 'success' } });
    } finally {
      await client.close();
    }
  });

  it("ends a wait with no limit of its own shortly after the objective's timeout_ms", async () => {
    const client = new TierflowClient(resolveRuntimeOptions({ redisUrl: db.server.url, prefix: uniquePrefix('default-limit') }));
    try {
      const started = Date.now();
      const rootId = await client.enqueue({ objective: 'nobody runs it', timeout_ms: 1_000 });
      const { error, at } = await ending(client.waitForResult(rootId));
      expect(error).toMatchObject({ code: 'wait_timeout', rootId });
      const afterMs = at - started;
      expect(afterMs).toBeGreaterThanOrEqual(1_000 + WAIT_GRACE_MS - 50);
      expect(afterMs).toBeLessThan(1_000 + WAIT_GRACE_MS + 5_000);
    } finally {
      await client.close();
    }
  });

  it('rejects what is still awaited when it closes', async () => {
    const client = new TierflowClient(resolveRuntimeOptions({ redisUrl: db.server.url, prefix: uniquePrefix('closing') }));
    const rootId = await client.enqueue({ objective: 'nobody runs it' });
    const wait = ending(client.waitForResult(rootId));
    await client.close();
    expect((await wait).error).toMatchObject({ code: 'client_closed', rootId });
  });
});
