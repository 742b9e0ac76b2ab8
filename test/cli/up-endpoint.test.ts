import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startRedisServer, uniquePrefix, waitFor, type RedisServer } from '@tierflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../security/tier-processes.js';

describe('tierflow up with LLM specialists and no model endpoint configured', () => {
  let redis: RedisServer;
  let project: string;

  beforeAll(async () => {
    redis = await startRedisServer();
    project = await mkdtemp(join(tmpdir(), 'tierflow-up-endpoint-'));
    await writeFile(join(project, 'tierflow.config.json'), JSON.stringify({ specialists: [{ kind: 'llm', name: 'writer' }] }));
  });

  afterAll(async () => {
    await redis?.stop();
    if (project) await rm(project, { recursive: true, force: true });
  });

  it('warns at start, in one line, that it will call the public default endpoint', async () => {
    const { OPENAI_BASE_URL: _unset, ...env } = process.env;
    const child = spawn(process.execPath, [BIN, 'up'], {
      cwd: project,
      env: { ...env, OTEL_TRACES_EXPORTER: 'none', OPENAI_API_KEY: 'test', REDIS_URL: redis.url, TIERFLOW_PREFIX: uniquePrefix('up-endpoint'), TIERFLOW_LOG: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    for (const stream of [child.stdout, child.stderr]) createInterface({ input: stream }).on('line', (line) => lines.push(line));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const warning = (line: string) => line.includes('public default endpoint');
      await waitFor(() => lines.some(warning), { timeoutMs: 30_000, description: `the warning:\n${lines.join('\n')}` });
      expect(lines.filter(warning)).toEqual([
        'up: warning: no model endpoint configured (no baseURL in the project file, no OPENAI_BASE_URL): specialist writer will call the public default endpoint, https://api.openai.com/v1',
      ]);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  }, 60_000);
});
