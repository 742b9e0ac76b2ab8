import { resolveRuntimeOptions } from '@tierflow/runtime';
import { createServer, resolveServerOptions, type TierflowServer } from '@tierflow/server';
import { startRedisServer, uniquePrefix, type RedisServer } from '@tierflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SILENT_LOG } from '../support/served.js';

// `tierflow serve` with its Redis gone: API requests answer 503 within the connect timeout, naming
// Redis, rather than wait with it; /readyz says so too, and /healthz still answers.
const TIMEOUT_MS = 500;
let redis: RedisServer;
let server: TierflowServer;

beforeAll(async () => {
  redis = await startRedisServer();
  const runtime = resolveRuntimeOptions({ redisUrl: redis.url, prefix: uniquePrefix('away'), connectTimeoutMs: TIMEOUT_MS });
  server = createServer(runtime, resolveServerOptions({}), SILENT_LOG);
});

afterAll(async () => {
  await server?.close();
  await redis?.stop();
});

const request = (path: string) => server.app.request(path, { headers: { host: '127.0.0.1:8080' } });

describe('a server whose Redis is away', () => {
  it('answers while Redis does, then 503 unavailable within the connect timeout, and again once Redis is back', async () => {
    expect((await request('/api/runs')).status).toBe(200);
    expect(await (await request('/readyz')).json()).toEqual({ ok: true });
    await redis.kill();
    const started = Date.now();
    const refused = await request('/api/runs');
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 2_000);
    expect(refused.status).toBe(503);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('unavailable');
    expect(body.error.message).toContain(`Redis at redis://127.0.0.1:${redis.port}`);
    const ready = await request('/readyz');
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { error: string }).error).toContain(`cannot reach Redis at redis://127.0.0.1:${redis.port}`);
    expect((await request('/healthz')).status).toBe(200);
    await redis.restart();
    expect((await request('/api/runs')).status).toBe(200);
    expect(await (await request('/readyz')).json()).toEqual({ ok: true });
  });
});
