import { redisClient, uniquePrefix } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { DeadLetters } from '@tierflow/runtime/admin';
import { RUN_STATUSES } from '@tierflow/runtime';
import type { Job } from 'bullmq';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CliIo } from '../io.js';
import { dlqCommand } from './dlq.js';
import { main } from '../main.js';

const db = usePrivateRedis();
afterEach(() => vi.unstubAllEnvs());

function capture(): { io: CliIo; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return { io: { stdout: (text) => void (out += text), stderr: (text) => void (err += text), readStdin: () => Promise.resolve('') }, out: () => out, err: () => err };
}

/** A deployment of this test's own, with one dead letter in it. */
async function deploymentWithALetter(): Promise<{ letters: DeadLetters; close(): Promise<void> }> {
  const prefix = uniquePrefix('purge');
  vi.stubEnv('REDIS_URL', db.server.url);
  vi.stubEnv('TIERFLOW_PREFIX', prefix);
  const redis = redisClient(db.server.url);
  const letters = new DeadLetters(redis, prefix);
  await letters.keep({ queueName: 'fleet', id: 'r1.0', data: { bad: true } } as unknown as Job, 'not a delegation');
  return {
    letters,
    close: async () => {
      await letters.close();
      redis.disconnect();
    },
  };
}

describe('tierflow runs --status', () => {
  it('refuses a status no run has, exit 2, listing the ones there are', async () => {
    const { io, out, err } = capture();
    expect(await main(['runs', '--status', 'sucess'], io)).toBe(2);
    expect(out()).toBe('');
    expect(err()).toContain(`must be a status: ${RUN_STATUSES.join(', ')}`);
  });
});

describe('tierflow dlq purge', () => {
  it('refuses without --yes when there is no terminal to ask on, and keeps the letters', async () => {
    const deployment = await deploymentWithALetter();
    try {
      const { io, err } = capture();
      expect(await dlqCommand('purge', undefined, { confirm: null }, io)).toBe(2);
      expect(err()).toBe('dlq purge deletes every dead letter: give --yes to confirm (standard input is not a terminal to ask on)\n');
      expect(await deployment.letters.list()).toHaveLength(1);
    } finally {
      await deployment.close();
    }
  });

  it('asks on a terminal, and keeps the letters when the answer is no', async () => {
    const deployment = await deploymentWithALetter();
    try {
      const asked: string[] = [];
      const { io, out } = capture();
      const no = (question: string): Promise<boolean> => (asked.push(question), Promise.resolve(false));
      expect(await dlqCommand('purge', undefined, { confirm: no }, io)).toBe(1);
      expect(asked).toEqual(['Delete all 1 dead letter? [y/N] ']);
      expect(out()).toBe('nothing purged\n');
      expect(await deployment.letters.list()).toHaveLength(1);

      const yes = (): Promise<boolean> => Promise.resolve(true);
      expect(await dlqCommand('purge', undefined, { confirm: yes }, io)).toBe(0);
      expect(await deployment.letters.list()).toHaveLength(0);
    } finally {
      await deployment.close();
    }
  });

  it('purges with --yes without asking', async () => {
    const deployment = await deploymentWithALetter();
    try {
      const { io, out } = capture();
      expect(await dlqCommand('purge', undefined, { yes: true, confirm: null }, io)).toBe(0);
      expect(out()).toBe('purged 1 dead letters\n');
      expect(await deployment.letters.list()).toHaveLength(0);
    } finally {
      await deployment.close();
    }
  });
});
