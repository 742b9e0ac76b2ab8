import { waitFor } from '@tierflow/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { connect } from './connection.js';
import { redisUrlFromEnv, resolveRuntimeOptions, runtimeOptionsFromEnv, withCredentials } from '../config/options.js';
import { isTlsUrl, redactUrl } from './redis-url.js';

// Passwords here are written with Q and Z, which no URL part or message of ours holds otherwise:
// a Q or a Z in the output is a piece of a password, however the URL was cut.
const leaks = (text: string): boolean => /[QZ]/.test(text);

const SHAPES: readonly string[] = [
  'redis://:QQ@ZZ@h:6379',
  'redis://user:Q%40Z@h:6379/0',
  'rediss://fleet:QZQZ@h:6380/0',
  'redis://u:QQ/ZZ@h',
  'redis://u:12/QZ@h',
  'redis://u:12#QZ@h',
  'redis://u:12?QZ@h',
  'redis://u:QZ#QZ@h',
  'redis://:QZ:QZ@h',
  'redis://QZQZ@h/QZ',
  'redis://h:6379?password=QZQZ',
  'redis://h:6379/0#QZ',
  'http://u:QZQZ@h',
  'QZ not a URL',
  'redis://u:Q Z@h',
  'redis:///QZ@h',
];

function messageOf(run: () => unknown): string {
  try {
    run();
    return '';
  } catch (error) {
    return String((error as Error).message);
  }
}

it('knows rediss:// as TLS', () => {
  expect([isTlsUrl('rediss://h:1'), isTlsUrl('REDISS://h:1'), isTlsUrl('redis://h:1')]).toEqual([true, true, false]);
});

describe('redactUrl', () => {
  it.each(SHAPES)('shows nothing of the password in %s', (url) => {
    expect(redactUrl(url)).not.toMatch(/[QZ]/);
  });

  it('keeps what helps: scheme, user, host, port and database', () => {
    expect(redactUrl('rediss://fleet:s3cret@h:6380/0')).toBe('rediss://fleet:***@h:6380/0');
    expect(redactUrl('redis://:s3cret@h')).toBe('redis://:***@h');
    expect(redactUrl('redis://h:6379')).toBe('redis://h:6379');
    expect(redactUrl('redis://[::1]:6379/2')).toBe('redis://[::1]:6379/2');
  });

  it('shows nothing of a random password, raw or encoded, in any URL shape', () => {
    const password = fc.string({ unit: fc.constantFrom('Q', 'Z', '/', '#', '?', '@', ':', '%', ' ', '=', '&', '[', ']'), minLength: 1, maxLength: 12 });
    const url = fc
      .record({
        scheme: fc.constantFrom('redis', 'rediss', 'http', ''),
        user: fc.constantFrom('', 'fleet', 'u-1'),
        password,
        encode: fc.boolean(),
        host: fc.constantFrom('h', '127.0.0.1', '[::1]', ''),
        port: fc.constantFrom('', ':6379', ':0'),
        db: fc.constantFrom('', '/0', '/3', '/'),
      })
      .map(({ scheme, user, password, encode, host, port, db }) => `${scheme ? `${scheme}://` : ''}${user}:${encode ? encodeURIComponent(password) : password}@${host}${port}${db}`);
    fc.assert(
      fc.property(url, (candidate) => {
        expect(redactUrl(candidate)).not.toMatch(/[QZ]/);
        expect(messageOf(() => runtimeOptionsFromEnv({ REDIS_URL: candidate }))).not.toMatch(/[QZ]/);
        expect(messageOf(() => runtimeOptionsFromEnv({ REDIS_URL_FLEET: candidate }, { tier: 'fleet' }))).not.toMatch(/[QZ]/);
        expect(messageOf(() => resolveRuntimeOptions({ redisUrl: candidate }))).not.toMatch(/[QZ]/);
      }),
      { numRuns: 500 },
    );
  });
});

describe('configuration errors', () => {
  it.each(SHAPES)('never quote the password of %s', (url) => {
    expect(leaks(messageOf(() => runtimeOptionsFromEnv({ REDIS_URL: url })))).toBe(false);
    expect(leaks(messageOf(() => resolveRuntimeOptions({ redisUrl: url })))).toBe(false);
    expect(leaks(messageOf(() => withCredentials(url, 'u', 'QZ')))).toBe(false);
    expect(leaks(messageOf(() => redisUrlFromEnv({ REDIS_URL: url, TIERFLOW_REDIS_PASSWORD: 'QZ/QZ' })))).toBe(false);
  });

  it('refuses a URL whose password was not percent-encoded, saying how to write it', () => {
    expect(messageOf(() => runtimeOptionsFromEnv({ REDIS_URL: 'redis://u:12/QZ@h' }))).toMatch(/REDIS_URL.*percent-encode/);
    expect(messageOf(() => runtimeOptionsFromEnv({ REDIS_URL: 'redis://u:QQ/ZZ@h' }))).toMatch(/REDIS_URL.*not a URL/);
  });

  it('puts a password with / # ? @ into the URL so that it reads back whole', () => {
    const url = redisUrlFromEnv({ REDIS_URL: 'redis://h:6379/0', TIERFLOW_REDIS_USERNAME: 'fleet', TIERFLOW_REDIS_PASSWORD: 'Q/Z#Q?Z@Q' });
    expect(decodeURIComponent(new URL(url).password)).toBe('Q/Z#Q?Z@Q');
    expect(runtimeOptionsFromEnv({ REDIS_URL: 'redis://h:6379/0', TIERFLOW_REDIS_USERNAME: 'fleet', TIERFLOW_REDIS_PASSWORD: 'Q/Z#Q?Z@Q' }).redisUrl).toBe(url);
    expect(redactUrl(url)).toBe('redis://fleet:***@h:6379/0');
  });
});

describe('connect', () => {
  it('warns of an unreachable Redis without its password', async () => {
    const warnings: string[] = [];
    const redis = connect('redis://fleet:Q%2FZ%40Q@127.0.0.1:9/0', (message) => warnings.push(message), undefined);
    try {
      await waitFor(() => warnings.length > 0, { timeoutMs: 10_000, description: 'a warning' });
      expect(warnings[0]).toContain('redis://fleet:***@127.0.0.1:9/0 unreachable');
      expect(leaks(warnings[0]!)).toBe(false);
    } finally {
      redis.disconnect();
    }
  });
});
