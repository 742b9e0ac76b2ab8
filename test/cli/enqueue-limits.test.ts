import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { redisClient, startRedisServer, uniquePrefix, type RedisServer } from '@tierflow/testing';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// `tierflow enqueue` as a user runs it, given more than a deployment takes.
const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'apps', 'cli', 'bin', 'tierflow.js');
const TWENTY_MB = 20 * 1024 * 1024;

let server: RedisServer;
let redis: Redis;
let dir: string;
let manySubtasks: string;
let bigData: string;

beforeAll(async () => {
  server = await startRedisServer();
  redis = redisClient(server.url);
  dir = await mkdtemp(join(tmpdir(), 'tierflow-limits-'));
  manySubtasks = join(dir, 'many-subtasks.json');
  const subtasks = Array.from({ length: 10_000 }, (_, index) => ({ objective: `subtask ${index}` }));
  await writeFile(manySubtasks, JSON.stringify({ objective: 'too many', task_data: { plan: { strategy: 'all_success', subtasks } } }));
  bigData = join(dir, 'big-data.json');
  await writeFile(bigData, JSON.stringify({ objective: 'too big', task_data: { blob: 'x'.repeat(TWENTY_MB) } }));
});

afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

function enqueue(source: string, prefix: string, env: NodeJS.ProcessEnv = {}, input?: string) {
  const result = spawnSync(process.execPath, [BIN, 'enqueue', source], {
    env: { ...process.env, OTEL_TRACES_EXPORTER: 'none', REDIS_URL: server.url, TIERFLOW_PREFIX: prefix, ...env },
    encoding: 'utf8',
    input,
    timeout: 20_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

async function monitorJobs(prefix: string): Promise<number> {
  return (await redis.keys(`${prefix}:monitor:*`)).length;
}

describe('tierflow enqueue refuses oversized input, and enqueues nothing', () => {
  it('an objective with 10,000 subtasks', async () => {
    const prefix = uniquePrefix('many');
    const result = enqueue(manySubtasks, prefix);
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toContain('the objective has 10000 subtasks, more than the limit of 256 (TIERFLOW_MAX_SUBTASKS raises it) [input_too_large]');
    expect(result.stdout).toBe('');
    expect(await monitorJobs(prefix)).toBe(0);
  });

  it('a 20 MB objective file, before reading it', async () => {
    const prefix = uniquePrefix('big');
    const result = enqueue(bigData, prefix);
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/big-data\.json is 2097\d{4} bytes, more than the limit of 1048576 bytes \(TIERFLOW_MAX_OBJECTIVE_BYTES raises it\) \[input_too_large\]/);
    expect(await monitorJobs(prefix)).toBe(0);
  });

  it('20 MB on standard input', async () => {
    const prefix = uniquePrefix('stdin');
    const result = enqueue('-', prefix, {}, JSON.stringify({ objective: 'too big', task_data: { blob: 'x'.repeat(TWENTY_MB) } }));
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toContain('<stdin> is more than the limit of 1048576 bytes (TIERFLOW_MAX_OBJECTIVE_BYTES raises it) [input_too_large]');
    expect(await monitorJobs(prefix)).toBe(0);
  });

  it('takes them once the deployment raises its limits', async () => {
    const prefix = uniquePrefix('raised');
    const result = enqueue(manySubtasks, prefix, { TIERFLOW_MAX_SUBTASKS: '10000' });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^\S+\n$/);
    expect(await monitorJobs(prefix)).toBeGreaterThan(0);
  });
});
