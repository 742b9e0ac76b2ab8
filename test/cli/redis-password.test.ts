import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRedisServer, type RedisServer } from '@tierflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../support/run-command.js';

// The commands as a user runs them, given Redis URLs with passwords in every shape. Q and Z
// appear in no message of ours: any Q or Z printed is a piece of a password.
let dir: string;
let objective: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tierflow-password-'));
  objective = join(dir, 'objective.json');
  await writeFile(objective, JSON.stringify({ objective: 'never runs' }));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a Redis password', () => {
  it.each<[string, NodeJS.ProcessEnv, readonly string[]]>([
    ['an @ in the password', { REDIS_URL: 'redis://:QQ@ZZ@127.0.0.1:9' }, ['enqueue', '<objective>']],
    ['a percent-encoded password', { REDIS_URL: 'redis://fleet:Q%2FZ%23Q@127.0.0.1:9/0' }, ['enqueue', '<objective>']],
    ['rediss://', { REDIS_URL: 'rediss://fleet:QZQZ@127.0.0.1:9' }, ['enqueue', '<objective>']],
    ['a / in the password, not encoded', { REDIS_URL: 'redis://u:QQ/ZZ@127.0.0.1:9' }, ['enqueue', '<objective>']],
    ['a / after a number, not encoded', { REDIS_URL: 'redis://u:12/QZ@127.0.0.1:9' }, ['enqueue', '<objective>']],
    ['a # in the password, not encoded', { REDIS_URL: 'redis://u:QZ#QZ@127.0.0.1:9' }, ['enqueue', '<objective>']],
    ['a ? in the password, not encoded', { REDIS_URL: 'redis://u:12?QZ@127.0.0.1:9' }, ['enqueue', '<objective>']],
    ['the wrong scheme', { REDIS_URL: 'http://u:QZQZ@127.0.0.1:9' }, ['enqueue', '<objective>']],
    ["a tier's own URL", { REDIS_URL_FLEET: 'redis://fleet:QZ@QZ@127.0.0.1:9' }, ['worker', 'fleet']],
    ['TIERFLOW_REDIS_PASSWORD', { TIERFLOW_REDIS_USERNAME: 'fleet', TIERFLOW_REDIS_PASSWORD: 'QZ/#?@QZ' }, ['worker', 'fleet']],
  ])('never appears in what the command prints: %s', async (_name, env, args) => {
    // It stops on a bad URL, or keeps trying an unreachable Redis after saying so.
    const { output } = await runCommand(
      args.map((arg) => (arg === '<objective>' ? objective : arg)),
      env,
      { enough: (text) => /unreachable/.test(text) },
    );
    expect(output).not.toBe('');
    expect(output).not.toMatch(/[QZ]/);
  });

  describe('refused by a live Redis', () => {
    let server: RedisServer;
    beforeAll(async () => {
      server = await startRedisServer({ args: ['--requirepass', 'the-right-one'] });
    });
    afterAll(async () => {
      await server?.stop();
    });

    // ioredis puts the AUTH command, password and all, on the error it emits; BullMQ prints such errors whole.
    it.each(['', 'fleet'])('never appears in what the command prints, user %j', async (user) => {
      const { status, output } = await runCommand(['enqueue', objective], { REDIS_URL: `redis://${user}:WRONG-QZ-pw@127.0.0.1:${server.port}` });
      expect(status, output).toBe(3);
      expect(output).toContain('WRONGPASS');
      expect(output).not.toMatch(/[QZ]/);
    });
  });
});
