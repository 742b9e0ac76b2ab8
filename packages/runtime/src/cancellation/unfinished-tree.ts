import { tierBelow, type TierName } from '@tierflow/protocol';
import type { RedisClient } from '@tierflow/beads';
import { QUEUE_OF } from '../messages/queues.js';
import { runScript, type RedisScript } from '../redis/scripts.js';

/**
 * A job's unfinished descendants, level by level, in one call however wide the tree: walking it
 * from the client took two round trips per node (the job, then its state), so cancelling a
 * fan-out of 32 took longer than the leaves took to stop.
 *   KEYS[1]   the target's job key (`<prefix>:<queue>:<id>`)
 *   ARGV[1]   the deployment's key prefix, with its colon (`<prefix>:`)
 *   ARGV[2..] the queue names of the tiers below the target's, top down
 * Returns id, level, state, … for every descendant BullMQ still counts as pending (in its
 * parent's `dependencies`) that exists and has not finished. The state is `delayed`,
 * `prioritized`, `waiting-children` or `pending` (active or waiting: telling those apart scans
 * a list, and cancelling treats them alike). Reads only; the keys it reads share the target's
 * hash tag, as BullMQ's own scripts' do. The level counts from 1, the target's children.
 */
const UNFINISHED_TREE: RedisScript = {
  lua: `
local out = {}
local level = { KEYS[1] }
for depth = 2, #ARGV do
  local queue = ARGV[1] .. ARGV[depth] .. ':'
  local below = {}
  for _, parent in ipairs(level) do
    for _, child in ipairs(redis.call('SMEMBERS', parent .. ':dependencies')) do
      if string.sub(child, 1, #queue) == queue and redis.call('EXISTS', child) == 1 then
        local id = string.sub(child, #queue + 1)
        local state = 'pending'
        if redis.call('ZSCORE', queue .. 'completed', id) or redis.call('ZSCORE', queue .. 'failed', id) then
          state = false
        elseif redis.call('ZSCORE', queue .. 'delayed', id) then
          state = 'delayed'
        elseif redis.call('ZSCORE', queue .. 'prioritized', id) then
          state = 'prioritized'
        elseif redis.call('ZSCORE', queue .. 'waiting-children', id) then
          state = 'waiting-children'
        end
        if state then
          out[#out + 1] = id
          out[#out + 1] = depth - 1
          out[#out + 1] = state
          below[#below + 1] = child
        end
      end
    end
  end
  level = below
end
return out`,
};

/** A node of a tree being cancelled. `state` is BullMQ's, or `pending` for active or waiting. */
export interface TreeNode {
  readonly id: string;
  readonly tier: TierName;
  readonly state: string;
}

/** The tiers below `tier`, top down. */
function tiersBelow(tier: TierName): TierName[] {
  const tiers: TierName[] = [];
  for (let below = tierBelow(tier); below; below = tierBelow(below)) tiers.push(below);
  return tiers;
}

/** Every unfinished descendant of the job `targetId` of `tier`, level by level; not the target itself. */
export async function unfinishedDescendants(redis: RedisClient, prefix: string, tier: TierName, targetId: string): Promise<TreeNode[]> {
  const below = tiersBelow(tier);
  if (below.length === 0) return [];
  const queues = [tier, ...below].map((name) => QUEUE_OF[name]);
  const reply = await runScript(redis, UNFINISHED_TREE, [`${prefix}:${queues[0]}:${targetId}`], [`${prefix}:`, ...queues.slice(1)]);
  return readNodes(reply, below);
}

/** The script's flat reply as nodes, read without trusting its shape. */
function readNodes(reply: unknown, below: readonly TierName[]): TreeNode[] {
  const words = Array.isArray(reply) ? (reply as unknown[]) : [];
  const nodes: TreeNode[] = [];
  for (let at = 0; at + 2 < words.length; at += 3) {
    const [id, level, state] = [words[at], words[at + 1], words[at + 2]];
    const tier = typeof level === 'number' ? below[level - 1] : undefined;
    if (typeof id === 'string' && typeof state === 'string' && tier) nodes.push({ id, tier, state });
  }
  return nodes;
}
