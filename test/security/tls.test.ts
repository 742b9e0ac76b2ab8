import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OutcomeMessage } from '@tierflow/protocol';
import { makeTestCertificates, redisClient, startRedisServer, uniquePrefix, type RedisServer, type TestCertificates } from '@tierflow/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simPlan } from '../support/runs.js';
import { startTiers, tierflow, type RunningTiers } from './tier-processes.js';

// A redis-server that speaks only TLS and wants a client certificate; the tiers and the command reach it over rediss://.
let dir: string;
let certs: TestCertificates;
let server: RedisServer;
let tiers: RunningTiers;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tierflow-tls-'));
  certs = await makeTestCertificates(dir);
  server = await startRedisServer({ tls: certs });
  env = {
    REDIS_URL: server.url,
    TIERFLOW_PREFIX: uniquePrefix('tls'),
    TIERFLOW_REDIS_TLS_CA: certs.ca,
    TIERFLOW_REDIS_TLS_CERT: certs.clientCert,
    TIERFLOW_REDIS_TLS_KEY: certs.clientKey,
  };
  tiers = await startTiers(env);
}, 60_000);

afterAll(async () => {
  await tiers?.processes.stop();
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Whether a connection with these TLS options gets as far as PING; the error otherwise. */
async function pingWith(tls: Record<string, Buffer>): Promise<string> {
  const redis = new Redis(server.url, { tls, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  // The TLS error comes as an event; the connect call only learns that the connection closed.
  let first: Error | undefined;
  redis.on('error', (error: Error) => (first ??= error));
  try {
    await redis.connect();
    return await redis.ping();
  } catch (error) {
    return (first ?? (error as Error)).message;
  } finally {
    redis.disconnect();
  }
}

describe('TLS to Redis', () => {
  it('serves only rediss://, with no plain port', async () => {
    expect(server.url).toMatch(/^rediss:\/\/127\.0\.0\.1:\d+$/);
    const redis = redisClient(server.url, certs);
    try {
      expect(await redis.config('GET', 'port')).toEqual(['port', '0']);
    } finally {
      redis.disconnect();
    }
  });

  it('runs a root objective through the four tiers, enqueued and awaited by the tierflow command', async () => {
    const objective = join(dir, 'objective.json');
    await writeFile(objective, JSON.stringify(simPlan('all_success', [{ output_bytes: 2048 }, {}])));
    const result = await tierflow(['enqueue', objective, '--wait', '--timeout-ms', '20000'], env);
    expect(result.code, `${result.stderr}\n${tiers.logs.join('\n')}`).toBe(0);
    expect((JSON.parse(result.stdout) as OutcomeMessage).payload.status).toBe('success');
  });

  it('refuses a client that does not trust the CA, or shows no certificate', async () => {
    const [ca, cert, key] = [certs.ca, certs.clientCert, certs.clientKey].map((path) => readFileSync(path));
    expect(await pingWith({ ca: ca!, cert: cert!, key: key! })).toBe('PONG');
    expect(await pingWith({ cert: cert!, key: key! })).toMatch(/self[- ]signed|unable to verify/i);
    expect(await pingWith({ ca: ca! })).not.toBe('PONG');
  });

  it('tells a worker whose TLS files are wrong, before it connects', async () => {
    const result = await tierflow(['worker', 'fleet'], { ...env, TIERFLOW_REDIS_TLS_CA: join(dir, 'missing.pem') });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('TIERFLOW_REDIS_TLS_CA=');
  });
});
