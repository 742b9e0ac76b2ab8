import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { aclFileText } from '@tierflow/cli';
import { redisClient, startRedisServer, uniquePrefix, type RedisServer } from '@tierflow/testing';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Every command BullMQ's scripts call, read from the installed BullMQ, so an upgrade that needs a
// new command fails here rather than as NOPERM in production.
const COMMANDS_DIR = join(dirname(createRequire(import.meta.url).resolve('bullmq/package.json')), 'dist', 'esm', 'commands');
const SCRIPT_COMMANDS = [
  ...new Set(
    readdirSync(COMMANDS_DIR, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.lua'))
      .flatMap((file) => [...readFileSync(join(COMMANDS_DIR, file), 'utf8').matchAll(/\b(?:rcall|redis\.p?call)\(\s*["']([A-Za-z]+)["']/g)].map((match) => match[1]!.toLowerCase())),
  ),
].sort();
// What ioredis and BullMQ send themselves, seen on a real run.
const CLIENT_COMMANDS = [
  'info',
  'client|setname',
  'evalsha',
  'eval',
  'script|load',
  'script|exists',
  'multi',
  'exec',
  'bzpopmin',
  'xread',
  'publish',
  'subscribe',
  'ping',
  'mget',
  'set',
  'get',
  'del',
];

let dir: string;
let server: RedisServer;
let admin: Redis;
const prefix = uniquePrefix('acl-commands');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tierflow-acl-commands-'));
  await writeFile(join(dir, 'users.acl'), aclFileText(prefix, { admin: 'admin-pw' }));
  server = await startRedisServer({ aclFile: join(dir, 'users.acl') });
  admin = redisClient(server.url.replace('//', '//admin:admin-pw@'));
});

afterAll(async () => {
  admin?.disconnect();
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** ACL DRYRUN of `command` for `user`, its arguments keys of the user's own queue or the control channel. */
async function dryRun(user: string, command: string): Promise<string> {
  const [info] = (await admin.call('COMMAND', 'INFO', command)) as [[string, number] | null];
  if (!info) throw new Error(`Redis does not know ${command}`);
  const argc = Math.abs(info[1]) - 1 - (command.includes('|') ? 1 : 0);
  const arg = ['publish', 'subscribe'].includes(command) ? `${prefix}:control` : `${prefix}:fleet:k`;
  const name = command.split('|');
  return String(await admin.call('ACL', 'DRYRUN', user, ...name, ...Array<string>(Math.max(argc, 0)).fill(arg)));
}

describe('the commands the runtime needs', () => {
  it('include more than a handful read from BullMQ', () => {
    expect(SCRIPT_COMMANDS).toEqual(expect.arrayContaining(['hset', 'zadd', 'xadd', 'time', 'rpoplpush']));
  });

  it.each(['monitor', 'architect', 'dispatcher', 'fleet', 'client'])('are all allowed to %s', async (user) => {
    const refused: string[] = [];
    for (const command of [...SCRIPT_COMMANDS, ...CLIENT_COMMANDS]) {
      const answer = await dryRun(user, command);
      if (answer !== 'OK') refused.push(`${command}: ${answer}`);
    }
    expect(refused).toEqual([]);
  });

  it.each(['monitor', 'architect', 'dispatcher', 'fleet', 'client'])('let %s append to an audit stream and read it, and nothing more', async (user) => {
    const key = `${prefix}:audit:r1`;
    const answer = async (...command: string[]): Promise<string> => String(await admin.call('ACL', 'DRYRUN', user, ...command));
    for (const command of [
      ['xadd', key, '*', 'f', 'v'],
      ['pexpire', key, '1000'],
      ['xrange', key, '-', '+'],
      ['xlen', key],
    ])
      expect(await answer(...command), command[0]).toBe('OK');
    for (const command of [
      ['xdel', key, '0-1'],
      ['xtrim', key, 'MAXLEN', '0'],
      ['del', key],
      ['xsetid', key, '1-1'],
      ['set', key, 'v'],
    ]) {
      expect(await answer(...command), command[0]).toMatch(/no permissions/);
    }
    // The queues' own event streams keep what BullMQ needs.
    expect(await answer('xtrim', `${prefix}:fleet:events`, 'MAXLEN', '0')).toBe('OK');
  });

  it.each(['flushall', 'flushdb', 'keys', 'config|get', 'config|set', 'debug', 'shutdown', 'acl|setuser', 'monitor', 'function|flush', 'script|flush', 'client|kill', 'migrate', 'swapdb'])(
    'keep %s from the tiers and the client',
    async (command) => {
      for (const user of ['monitor', 'fleet', 'client']) expect(await dryRun(user, command)).toContain('no permissions to run');
    },
  );
});
