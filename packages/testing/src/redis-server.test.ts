import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeTestCertificates } from './certificates.js';
import { findRedisServerBinary } from './redis-binary.js';
import { redisClient } from './redis-client.js';
import { startRedisServer, type RedisServer } from './redis-server.js';

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('startRedisServer', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(() => server.stop());

  it('serves on a loopback port, not the shared 6379', async () => {
    expect(server.url).toBe(`redis://127.0.0.1:${server.port}`);
    expect(server.port).not.toBe(6379);
    expect(isRunning(server.pid)).toBe(true);
    const redis = redisClient(server.url);
    try {
      expect(await redis.ping()).toBe('PONG');
      expect(await redis.config('GET', 'save')).toEqual(['save', '']);
      expect(await redis.config('GET', 'dir')).toEqual(['dir', server.dir]);
    } finally {
      redis.disconnect();
    }
  });

  it('keeps what is written', async () => {
    const redis = redisClient(server.url);
    try {
      await redis.set('greeting', 'hello');
      expect(await redis.get('greeting')).toBe('hello');
    } finally {
      redis.disconnect();
    }
  });
});

describe('stop', () => {
  it('ends the process and removes the temporary directory it made', async () => {
    const server = await startRedisServer();
    const { pid, dir } = server;
    expect(existsSync(dir)).toBe(true);
    await server.stop();
    expect(isRunning(pid)).toBe(false);
    expect(existsSync(dir)).toBe(false);
  });

  it('leaves a directory it was given', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tierflow-given-'));
    try {
      const server = await startRedisServer({ dir });
      expect(server.dir).toBe(dir);
      await server.stop();
      expect(existsSync(dir)).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('gives two servers two ports', async () => {
    const [a, b] = await Promise.all([startRedisServer(), startRedisServer()]);
    try {
      expect(a.port).not.toBe(b.port);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});

describe('kill and restart', () => {
  let server: RedisServer;
  beforeAll(async () => {
    // fsync on every write, so a SIGKILL loses nothing acknowledged.
    server = await startRedisServer({ appendOnly: true, args: ['--appendfsync', 'always'] });
  });
  afterAll(() => server.stop());

  it('keeps data written before a crash', async () => {
    const before = redisClient(server.url);
    await before.set('durable', 'yes');
    before.disconnect();
    const crashedPid = server.pid;

    await server.kill();
    expect(isRunning(crashedPid)).toBe(false);
    expect(existsSync(server.dir)).toBe(true);

    await server.restart();
    expect(server.pid).not.toBe(crashedPid);
    const after = redisClient(server.url);
    try {
      expect(await after.get('durable')).toBe('yes');
    } finally {
      after.disconnect();
    }
  });

  it('restarts a running server on the same port', async () => {
    const { port, pid } = server;
    await server.restart();
    expect(server.port).toBe(port);
    expect(isRunning(pid)).toBe(false);
    const redis = redisClient(server.url);
    try {
      expect(await redis.get('durable')).toBe('yes');
    } finally {
      redis.disconnect();
    }
  });
});

describe('without redis-server', () => {
  const path = process.env['PATH'];
  afterEach(() => {
    process.env['PATH'] = path;
  });

  it('finds it on PATH', () => {
    expect(findRedisServerBinary()).toMatch(/\/redis-server$/);
  });

  it('says how to install it', async () => {
    process.env['PATH'] = '/nonexistent';
    expect(findRedisServerBinary()).toBeNull();
    await expect(startRedisServer()).rejects.toThrow(/redis-server is not on PATH.*apt-get install redis-server/);
  });
});

describe('ACL file and TLS', () => {
  it('starts with an ACL file whose default user is off, and is ready all the same', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tierflow-acl-'));
    const server = await startRedisServer({ aclFile: join(dir, 'users.acl') }).catch((error: Error) => error);
    // Redis refuses to start with a missing ACL file: the option reaches it.
    expect(server).toBeInstanceOf(Error);
    await writeFile(join(dir, 'users.acl'), 'user default off\nuser t on >pw ~* +@all\n');
    const started = await startRedisServer({ aclFile: join(dir, 'users.acl') });
    const anonymous = redisClient(started.url);
    anonymous.on('error', () => undefined);
    const user = redisClient(started.url.replace('//', '//t:pw@'));
    try {
      await expect(anonymous.get('x')).rejects.toThrow(/NOAUTH/);
      expect(await user.ping()).toBe('PONG');
    } finally {
      anonymous.disconnect();
      user.disconnect();
      await started.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('serves TLS only, to a client with a certificate from the test CA', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tierflow-certs-'));
    const certs = await makeTestCertificates(dir);
    const server = await startRedisServer({ tls: certs });
    const redis = redisClient(server.url, certs);
    try {
      expect(server.url).toBe(`rediss://127.0.0.1:${server.port}`);
      expect(await redis.ping()).toBe('PONG');
      expect(await redis.config('GET', 'port')).toEqual(['port', '0']);
    } finally {
      redis.disconnect();
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
