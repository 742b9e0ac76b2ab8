import { describe, expect, it } from 'vitest';
import { childMessageId, outcomeMessageId, rootIdOf } from '../messages/ids.js';
import { DEFAULT_REDIS_URL } from './runtime-settings.js';
import { redisUrlFromEnv, resolveRuntimeOptions, runtimeOptionsFromEnv, withCredentials } from './options.js';
import { tierOfSlug } from '@tierflow/protocol';
import { bullPriority, QUEUE_OF } from '../messages/queues.js';

describe('resolveRuntimeOptions', () => {
  it('defaults to a hash-tagged prefix, local Redis, three attempts and an hour of de-duplication', () => {
    expect(resolveRuntimeOptions()).toMatchObject({
      prefix: '{tierflow}',
      redisUrl: 'redis://127.0.0.1:6379',
      retry: { attempts: 3 },
      dedupTtlMs: 3_600_000,
    });
  });

  it('calibrates Fleet leaves unless told not to, and takes only a boolean', () => {
    expect(resolveRuntimeOptions().calibration).toBe(true);
    expect(resolveRuntimeOptions({ calibration: false }).calibration).toBe(false);
    expect(() => resolveRuntimeOptions({ calibration: 'no' as unknown as boolean })).toThrow(/calibration/);
  });

  it('checks attestations without requiring them unless told, and names the tier by a valid identity only', () => {
    expect(resolveRuntimeOptions().governance).toEqual({ require: false, agent: null, pins: null });
    const agent = { agent_id: 'dispatcher', agent_version: '0.1.0', prompt_hash: 'a'.repeat(64) };
    expect(resolveRuntimeOptions({ governance: { require: true, agent } }).governance).toEqual({ require: true, agent, pins: null });
    expect(() => resolveRuntimeOptions({ governance: { agent: { ...agent, prompt_hash: 'short' } } })).toThrow(/governance\.agent\.prompt_hash/);
    const pins = () => Promise.resolve(new Map([['architect', agent]]));
    expect(resolveRuntimeOptions({ governance: { pins } }).governance.pins).toBe(pins);
    expect(() => resolveRuntimeOptions({ governance: { pins: 'tierflow.lock.json' as never } })).toThrow(/governance\.pins/);
  });

  it.each(['tierflow', '{a}:b', '{}', '{a}{b}'])('refuses the prefix %j', (prefix) => {
    expect(() => resolveRuntimeOptions({ prefix })).toThrow(/hash tag/);
  });

  it.each(['{tierflow}', 'prod-{tierflow}', '{cell-7}'])('accepts the prefix %j', (prefix) => {
    expect(resolveRuntimeOptions({ prefix }).prefix).toBe(prefix);
  });

  it('refuses a URL that is not redis:// or rediss://', () => {
    expect(() => resolveRuntimeOptions({ redisUrl: 'http://x' })).toThrow('Redis URL http://x/: must start with redis:// or rediss://');
  });

  it('takes a job for poison after 3 crashes unless told, from TIERFLOW_MAX_CRASHES, and refuses a bad count', () => {
    expect(resolveRuntimeOptions().maxCrashes).toBe(3);
    expect(runtimeOptionsFromEnv({ TIERFLOW_MAX_CRASHES: '5' }).maxCrashes).toBe(5);
    for (const bad of ['0', '-1', '1.5']) expect(() => runtimeOptionsFromEnv({ TIERFLOW_MAX_CRASHES: bad })).toThrow(/TIERFLOW_MAX_CRASHES/);
  });

  it('reads REDIS_URL and TIERFLOW_PREFIX', () => {
    expect(runtimeOptionsFromEnv({ REDIS_URL: 'rediss://h:1', TIERFLOW_PREFIX: '{x}' })).toMatchObject({ redisUrl: 'rediss://h:1', prefix: '{x}' });
  });
});

describe('the Redis URL and its credentials', () => {
  const env = {
    REDIS_URL: 'redis://h:6379',
    REDIS_URL_FLEET: 'redis://fleet:f-secret@h:6379',
  };

  it('gives a tier its own REDIS_URL_<TIER>, as it is, and the others REDIS_URL', () => {
    expect(runtimeOptionsFromEnv(env, { tier: 'fleet' }).redisUrl).toBe('redis://fleet:f-secret@h:6379');
    expect(runtimeOptionsFromEnv({ ...env, TIERFLOW_REDIS_USERNAME: 'x' }, { tier: 'fleet' }).redisUrl).toBe('redis://fleet:f-secret@h:6379');
    expect(runtimeOptionsFromEnv(env, { tier: 'monitor' }).redisUrl).toBe('redis://h:6379');
    expect(runtimeOptionsFromEnv(env).redisUrl).toBe('redis://h:6379');
    expect(redisUrlFromEnv({}, 'fleet')).toBe(DEFAULT_REDIS_URL);
  });

  it('puts TIERFLOW_REDIS_USERNAME and TIERFLOW_REDIS_PASSWORD into REDIS_URL, or the default URL', () => {
    expect(redisUrlFromEnv({ ...env, TIERFLOW_REDIS_USERNAME: 'client', TIERFLOW_REDIS_PASSWORD: 'pw' })).toBe('redis://client:pw@h:6379');
    expect(redisUrlFromEnv({ REDIS_URL: 'rediss://old:old@h:1/2', TIERFLOW_REDIS_PASSWORD: 'new' })).toBe('rediss://old:new@h:1/2');
    expect(redisUrlFromEnv({ TIERFLOW_REDIS_USERNAME: 'monitor', TIERFLOW_REDIS_PASSWORD: 'pw' })).toBe('redis://monitor:pw@127.0.0.1:6379');
  });

  it('encodes credentials so that ioredis decodes them back', () => {
    const url = withCredentials('redis://h:6379', 'us er', 'p@s:s/%41#');
    const parsed = new URL(url);
    expect([decodeURIComponent(parsed.username), decodeURIComponent(parsed.password), parsed.host]).toEqual(['us er', 'p@s:s/%41#', 'h:6379']);
  });

  it('refuses TLS files for a URL that is not rediss://, and a file it cannot read', () => {
    expect(() => runtimeOptionsFromEnv({ REDIS_URL: 'redis://h:1', TIERFLOW_REDIS_TLS_CA: '/ca.pem' })).toThrow(/TIERFLOW_REDIS_TLS_CA set, but the Redis URL is not rediss:\/\//);
    expect(() => runtimeOptionsFromEnv({ REDIS_URL: 'rediss://h:1', TIERFLOW_REDIS_TLS_CA: '/nonexistent/ca.pem' })).toThrow(/TIERFLOW_REDIS_TLS_CA=\/nonexistent\/ca.pem: ENOENT/);
  });
});

describe('ids', () => {
  it('derives child ids from the parent, the round and the index, and finds the root again', () => {
    const child = childMessageId(childMessageId('root-1', 0, 0), 1, 2);
    expect(child).toBe('root-1.0-0.1-2');
    expect(rootIdOf(child)).toBe('root-1');
    expect(outcomeMessageId(child)).toBe('root-1.0-0.1-2.out');
  });
});

describe('queues', () => {
  it('maps tiers to queues and back', () => {
    expect(QUEUE_OF.SPECIALIZED_FLEET).toBe('fleet');
    expect(tierOfSlug('dispatcher')).toBe('ROUTING_DISPATCHER');
    expect(tierOfSlug('nope')).toBeNull();
  });

  it('keeps critical work first: priority 0 becomes the highest BullMQ priority', () => {
    expect([0, 1, 4].map(bullPriority)).toEqual([1, 2, 5]);
  });
});
