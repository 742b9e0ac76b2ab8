import type { RedisClient } from '@tierflow/beads';
import { bullmqFunction } from './bullmq-lua.js';
import { runScript, type RedisScript } from './scripts.js';

/**
 * A parent waits only for the children it sent itself. BullMQ wakes a parked parent once its
 * `dependencies` set is empty, and refuses to complete one while the set holds anything; but
 * anyone who can write the queues (every tier's Redis user can) may add a job naming any job as
 * its parent, which puts that job in the parent's set: a planted child that is never taken up,
 * or is refused and fails, would hold the parent until its deadline. So each delegating tier
 * keeps the job keys of the children it sent in a set of its own
 * (`<prefix>:children:<tier>:<parent id>`, written in the same script as the round, and only by
 * that tier: the Redis ACL gives every other user read access alone), and what the dependencies
 * set holds beyond it is not the parent's to wait for.
 *
 * Lua functions, for the scripts that complete a job (JobFinisher) and the watchdog's
 * {@link releaseFromForeignChildren}. Both do nothing for a parent without such a set (one parked
 * by an earlier version, say): without its own list, nothing is known to be foreign.
 */
export const FOREIGN_CHILDREN_LUA = `
${bullmqFunction('releaseParentIfNoPendingDependencies')}
-- Drops from a parent's dependencies every job it did not send itself.
local function dropForeignChildren(depsKey, ownKey)
  if redis.call('EXISTS', ownKey) == 0 or redis.call('SCARD', depsKey) == 0 then return 0 end
  local foreign = redis.call('SDIFF', depsKey, ownKey)
  for _, key in ipairs(foreign) do redis.call('SREM', depsKey, key) end
  return #foreign
end
-- Moves a parked parent on when none of its own children is pending, whatever else names it:
-- 1 when it did. A child of its own still pending is found at once (LIMIT 1).
local function releaseFromForeignChildren(parentKey, ownKey, parentQueueKey, parentId, timestamp)
  local depsKey = parentKey .. ':dependencies'
  if not redis.call('ZSCORE', parentQueueKey .. ':waiting-children', parentId) then return 0 end
  if redis.call('EXISTS', ownKey) == 0 or redis.call('SCARD', depsKey) == 0 then return 0 end
  if redis.call('SINTERCARD', 2, depsKey, ownKey, 'LIMIT', 1) > 0 then return 0 end
  dropForeignChildren(depsKey, ownKey)
  releaseParentIfNoPendingDependencies({parentKey, depsKey}, {parentQueueKey, parentId, timestamp})
  return 1
end`;

/**
 * Releases a parked parent that waits only for jobs it did not send (the watchdog's backstop,
 * when a completion did not).
 *   KEYS[1]  the parent's job key
 *   KEYS[2]  the set of the children it sent
 *   ARGV[1]  the parent's queue key (`<prefix>:<queue>`)
 *   ARGV[2]  the parent's id
 *   ARGV[3]  now, ms since the epoch
 * Returns 1 when the parent was moved on, 0 when it was not parked or still waits for a child of its own.
 */
const RELEASE_FROM_FOREIGN: RedisScript = {
  lua: `
${FOREIGN_CHILDREN_LUA}
return releaseFromForeignChildren(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3])`,
};

export interface ParentRef {
  /** The parent's job key. */
  readonly key: string;
  /** The set of the children it sent. */
  readonly ownChildren: string;
  /** Its queue's key, `<prefix>:<queue>`. */
  readonly queueKey: string;
  readonly id: string;
}

/** Runs {@link RELEASE_FROM_FOREIGN}: whether the parent was moved on. */
export async function releaseFromForeignChildren(redis: RedisClient, parent: ParentRef, now: number): Promise<boolean> {
  return (await runScript(redis, RELEASE_FROM_FOREIGN, [parent.key, parent.ownChildren], [parent.queueKey, parent.id, now])) === 1;
}
