import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { redisClient, startRedisServer, type RedisServer } from '@tierflow/testing';
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { aclCommand } from '../commands/acl.js';
import { main } from '../main.js';
import type { CliIo } from '../io.js';
import { applyAcl } from './acl-apply.js';
import { passwordRule } from './acl-passwords.js';

const PASSWORDS = { admin: 'admin-pw', client: 'client-pw', monitor: 'monitor-pw', architect: 'architect-pw', dispatcher: 'dispatcher-pw', fleet: 'fleet-pw' };
const ENV = Object.fromEntries(Object.entries(PASSWORDS).map(([user, password]) => [`TIERFLOW_ACL_PASSWORD_${user.toUpperCase()}`, password]));

const opened: { server: RedisServer; clients: Redis[] }[] = [];
afterEach(async () => {
  for (const { server, clients } of opened.splice(0)) {
    for (const client of clients) client.disconnect();
    await server.stop();
  }
});

async function server(options: { aclFile?: string } = {}): Promise<{ server: RedisServer; client: (user?: string, password?: string) => Redis }> {
  const started = await startRedisServer(options);
  const entry = { server: started, clients: [] as Redis[] };
  opened.push(entry);
  const client = (user?: string, password?: string): Redis => {
    const url = user ? started.url.replace('//', `//${user}:${password ?? ''}@`) : started.url;
    const redis = redisClient(url);
    redis.on('error', () => undefined);
    entry.clients.push(redis);
    return redis;
  };
  return { server: started, client };
}

function io(): CliIo & { out: string; err: string } {
  const sink = { out: '', err: '', readStdin: () => Promise.resolve('') };
  return Object.assign(sink, { stdout: (text: string) => void (sink.out += text), stderr: (text: string) => void (sink.err += text) });
}

async function loginFails(connect: () => Redis): Promise<string> {
  return connect()
    .ping()
    .then(
      () => 'logged in',
      (error: Error) => error.message,
    );
}

describe('applyAcl', () => {
  it('refuses, changing nothing, to disable default for its own connection without an admin password', async () => {
    const { client } = await server();
    const admin = client();
    await expect(applyAcl(admin, '{tierflow}', { fleet: 'x' })).rejects.toThrow(/TIERFLOW_ACL_PASSWORD_ADMIN/);
    expect(await admin.call('ACL', 'USERS')).toEqual(['default']);
  });

  it('creates the users, takes over as admin, disables default; re-applied, keeps the passwords it is not given', async () => {
    const { client } = await server();
    const admin = client();
    const report = await applyAcl(admin, '{tierflow}', PASSWORDS);
    expect(report).toContain('fleet: rules set, password set, on');
    expect(report.at(-1)).toBe('default: off');
    expect(await admin.call('ACL', 'WHOAMI')).toBe('admin');
    expect(((await admin.call('ACL', 'USERS')) as string[]).sort()).toEqual(['admin', 'architect', 'client', 'default', 'dispatcher', 'fleet', 'monitor']);

    expect(await loginFails(() => client())).toMatch(/NOAUTH/);
    expect(await loginFails(() => client('default', ''))).toMatch(/WRONGPASS/);
    expect(await client('fleet', 'fleet-pw').ping()).toBe('PONG');

    const again = await applyAcl(admin, '{tierflow}', { admin: 'admin-pw' });
    expect(again).toContain('fleet: rules set, password unchanged (TIERFLOW_ACL_PASSWORD_FLEET unset)');
    expect(await client('fleet', 'fleet-pw').ping()).toBe('PONG');
    expect(await loginFails(() => client('fleet', 'wrong'))).toMatch(/WRONGPASS/);
  });
});

describe('tierflow acl', () => {
  it('prints the file for a prefix, with hashed passwords', async () => {
    const out = io();
    expect(await aclCommand('print', { prefix: '{prod}' }, out, { TIERFLOW_ACL_PASSWORD_FLEET: 'fleet-pw' })).toBe(0);
    expect(out.out).toContain(`user fleet on ${passwordRule('fleet-pw')} `);
    expect(out.out).toContain('~{prod}:beads:execution/*');
    expect(out.err).toContain('off, without a password: admin, client, monitor, architect, dispatcher');
  });

  it('applies to a server started with an ACL file and saves it there', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tierflow-acl-'));
    try {
      // ACL SAVE writes the file the server started with.
      const file = join(dir, 'users.acl');
      await writeFile(file, 'user default on nopass ~* &* +@all\n');
      const { server: started } = await server({ aclFile: file });
      const out = io();
      expect(await aclCommand('apply', { adminUrl: started.url, save: true }, out, ENV)).toBe(0);
      expect(out.out).toContain('saved to the ACL file');
      const saved = await readFile(file, 'utf8');
      expect(saved).toMatch(/^user default off /m);
      // Redis writes the rules back in its own words; the password stays a hash.
      expect(saved).toMatch(/^user fleet on .*#[0-9a-f]{64} /m);
      expect(saved).not.toContain('fleet-pw');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('is a command of tierflow', async () => {
    const out = io();
    expect(await main(['acl', 'print', '--prefix', '{via-main}'], out)).toBe(0);
    expect(out.out).toMatch(/^user default off /);
    expect(out.out).toContain('~{via-main}:fleet:*');
  });

  it('needs an admin connection and a known action', async () => {
    const out = io();
    expect(await aclCommand('apply', {}, out, {})).toBe(2);
    expect(out.err).toContain('--admin-url or ADMIN_REDIS_URL');
    expect(await aclCommand('drop', {}, out, {})).toBe(2);
    expect(out.err).toContain('unknown action "drop"');
    // Nothing listens on port 1: the command gives up at once instead of retrying.
    expect(await aclCommand('apply', { adminUrl: 'redis://127.0.0.1:1' }, out, {})).toBe(1);
    expect(out.err).toContain('acl apply: connect ECONNREFUSED');
  });
});
