import { TIER_NAMES, TIER_SLUGS } from '@tierflow/protocol';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { describe, expect, it } from 'vitest';
import { BEADS_NAMESPACES } from './beads-key.js';
import { beadsAclKeyRules } from './beads-acl.js';
import { canWrite } from './permissions.js';
import { escapeRedisGlob } from './redis-glob.js';

const db = usePrivateRedis();

// Valid Beads keys near every boundary of the permissions table.
const KEYS = [
  ...BEADS_NAMESPACES.flatMap((namespace) => [`${namespace}/x`, `${namespace}/run-1/deep/key`]),
  ...Object.values(TIER_SLUGS).flatMap((slug) => [`system/seen-messages/${slug}`, `system/seen-messages/${slug}/m1`, `system/seen-messages/${slug}x/m1`]),
  'system/seen-messages',
  'system/seen-messages-other/m1',
  'system/other',
];

/** Asks Redis itself whether `user` may run the command, without running it. */
async function allowed(user: string, ...command: string[]): Promise<boolean> {
  const answer = String(await db.redis.call('ACL', 'DRYRUN', user, ...command));
  if (answer !== 'OK' && !answer.includes('no permissions')) throw new Error(`unexpected ACL DRYRUN answer: ${answer}`);
  return answer === 'OK';
}

describe('beadsAclKeyRules', () => {
  it('reads every Beads key and writes the tier’s own namespaces', () => {
    expect(beadsAclKeyRules('SPECIALIZED_FLEET', '{tierflow}')).toEqual([
      '%R~{tierflow}:beads:*',
      '~{tierflow}:beads:execution/*',
      '~{tierflow}:beads:system/seen-messages/fleet',
      '~{tierflow}:beads:system/seen-messages/fleet/*',
    ]);
    expect(beadsAclKeyRules('PROGRESS_MONITOR', '{tierflow}')).toEqual(['%R~{tierflow}:beads:*', '~{tierflow}:beads:system/*', '~{tierflow}:beads:history/*']);
  });

  it.each(TIER_NAMES)('lets Redis refuse exactly the writes the store refuses: %s', async (tier) => {
    const prefix = '{acl-[x]*}';
    const user = `beads-${TIER_SLUGS[tier]}`;
    await db.redis.call('ACL', 'SETUSER', user, 'reset', 'on', 'nopass', '+get', '+set', ...beadsAclKeyRules(tier, escapeRedisGlob(prefix)));
    for (const key of KEYS) {
      const redisKey = `${prefix}:beads:${key}`;
      expect([key, await allowed(user, 'SET', redisKey, 'v')]).toEqual([key, canWrite(tier, key)]);
      expect([key, await allowed(user, 'GET', redisKey)]).toEqual([key, true]);
    }
    // The prefix is matched literally: its glob characters match nothing else.
    expect(await allowed(user, 'GET', '{acl-x-lookalike}:beads:task/x')).toBe(false);
    expect(await allowed(user, 'GET', `${prefix}:monitor:x`)).toBe(false);
  });
});
