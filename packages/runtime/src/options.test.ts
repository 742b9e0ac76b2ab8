import { describe, expect, it } from 'vitest';
import { childMessageId, outcomeMessageId, rootIdOf } from './ids.js';
import { resolveRuntimeOptions, runtimeOptionsFromEnv } from './options.js';
import { bullPriority, QUEUE_OF, tierFromSlug } from './queues.js';

describe('resolveRuntimeOptions', () => {
  it('defaults to a hash-tagged prefix, local Redis, three attempts and an hour of de-duplication', () => {
    expect(resolveRuntimeOptions()).toMatchObject({
      prefix: '{tierflow}',
      redisUrl: 'redis://127.0.0.1:6379',
      retry: { attempts: 3 },
      dedupTtlMs: 3_600_000,
    });
  });

  it.each(['tierflow', '{a}:b', '{}', '{a}{b}'])('refuses the prefix %j', (prefix) => {
    expect(() => resolveRuntimeOptions({ prefix })).toThrow(/hash tag/);
  });

  it.each(['{tierflow}', 'prod-{tierflow}', '{cell-7}'])('accepts the prefix %j', (prefix) => {
    expect(resolveRuntimeOptions({ prefix }).prefix).toBe(prefix);
  });

  it('refuses a URL that is not redis:// or rediss://', () => {
    expect(() => resolveRuntimeOptions({ redisUrl: 'http://x' })).toThrow(/REDIS_URL/);
  });

  it('reads REDIS_URL and TIERFLOW_PREFIX', () => {
    expect(runtimeOptionsFromEnv({ REDIS_URL: 'rediss://h:1', TIERFLOW_PREFIX: '{x}' })).toMatchObject({ redisUrl: 'rediss://h:1', prefix: '{x}' });
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
    expect(tierFromSlug('dispatcher')).toBe('ROUTING_DISPATCHER');
    expect(tierFromSlug('nope')).toBeNull();
  });

  it('keeps critical work first: priority 0 becomes the highest BullMQ priority', () => {
    expect([0, 1, 4].map(bullPriority)).toEqual([1, 2, 5]);
  });
});
