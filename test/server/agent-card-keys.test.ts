import { once } from 'node:events';
import { runtimeOptionsFromEnv } from '@tierflow/runtime';
import { redisClient, startRedisServer, uniquePrefix, waitFor, type RedisServer } from '@tierflow/testing';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../support/raw-http.js';
import { serveDeployment, type Served } from '../support/served.js';
import { startTiers, type RunningTiers } from '../security/tier-processes.js';

// The agent card is open to anyone: what it costs Redis must not grow with the keyspace. Here a
// private Redis holds 200,000 keys of something else, and a real Fleet process comes and goes.

const UNRELATED_KEYS = 200_000;
let redis: RedisServer;
let admin: Redis;
let served: Served;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  redis = await startRedisServer();
  admin = redisClient(redis.url);
  // Made in Redis itself, 10,000 at a time: quicker than sending them.
  for (let batch = 0; batch < UNRELATED_KEYS / 10_000; batch += 1) {
    await admin.eval(`for i = 1, 10000 do redis.call('SET', 'unrelated:' .. ARGV[1] .. ':' .. i, 'x') end`, 0, String(batch));
  }
  env = { REDIS_URL: redis.url, TIERFLOW_PREFIX: uniquePrefix('card'), TIERFLOW_LOG: 'silent', TIERFLOW_HEARTBEAT_MS: '300' };
  served = await serveDeployment(runtimeOptionsFromEnv(env));
}, 60_000);

afterAll(async () => {
  await served?.close();
  admin?.disconnect();
  await redis?.stop();
});

async function card(): Promise<{ skills: { id: string }[] }> {
  const answer = await rawRequest(`${served.url}/.well-known/agent-card.json`, { headers: { host: new URL(served.url).host } });
  expect(answer.status).toBe(200);
  return JSON.parse(answer.body) as { skills: { id: string }[] };
}

/** Calls of each command since the last CONFIG RESETSTAT. */
async function commandCalls(): Promise<Map<string, number>> {
  const info = await admin.info('commandstats');
  return new Map([...info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)].map((match) => [match[1]!, Number(match[2])]));
}

const skillIds = async (): Promise<string[]> => (await card()).skills.map((skill) => skill.id);

describe('the agent card', () => {
  it('follows the Fleet workers as they come and go without scanning the keyspace', async () => {
    expect(await admin.dbsize()).toBeGreaterThanOrEqual(UNRELATED_KEYS);
    await admin.config('RESETSTAT');
    expect(await skillIds()).toEqual(['objective']);

    const fleet: RunningTiers = await startTiers(env, ['fleet']);
    try {
      await waitFor(async () => (await skillIds()).includes('sim') || null, { timeoutMs: 10_000, description: 'the card to list the Fleet’s sim' });
      for (let request = 0; request < 20; request += 1) await card();
    } finally {
      // A Fleet killed leaves its heartbeat to expire: the card drops it by itself.
      const child = fleet.processes.children.get('fleet')!;
      child.kill('SIGKILL');
      await once(child, 'exit').catch(() => undefined);
    }
    await waitFor(async () => (await skillIds()).includes('sim') === false || null, { timeoutMs: 10_000, description: 'the card to drop the killed Fleet' });

    const calls = await commandCalls();
    expect(calls.get('scan') ?? 0).toBe(0);
    expect(calls.get('keys') ?? 0).toBe(0);
  }, 60_000);
});
