import { isOutcome, validate, type OutcomeMessage } from '@tierflow/protocol';
import type { RedisClient } from '@tierflow/beads';
import { ReplyError } from 'ioredis';
import { readRunTree } from '../audit/run-tree.js';
import { outcomeMessageId, rootIdOf } from '../messages/ids.js';
import { JobFinder } from '../redis/job-finder.js';
import type { SigningConfig } from '../security/signing-keys.js';
import { readRecording } from './read-recording.js';
import { findNode, nodeView, type NodeJob } from './node-view.js';
import type { NodeView } from './node-view-schema.js';
import { runTimeline, type RunTimeline } from './run-timeline.js';

/**
 * One node of a run as `tierflow inspect` shows it: its place in the run's tree, its recording,
 * and its job while the queue retains it. Null when none of them knows the node.
 */
export async function readNodeView(redis: RedisClient, prefix: string, nodeId: string, signing: SigningConfig | null = null): Promise<NodeView | null> {
  const rootId = rootIdOf(nodeId);
  const [tree, recording, job] = await Promise.all([readRunTree(redis, prefix, rootId, signing), readRecording(redis, prefix, rootId), readNodeJob(redis, prefix, nodeId)]);
  const node = tree ? findNode(tree, nodeId) : null;
  const record = recording.nodes.get(nodeId) ?? null;
  if (!node && !record && !job) return null;
  return nodeView({ rootId, nodeId, tree: node, job, record, skipped: recording.skipped });
}

/**
 * A node's outcome message: its job's return value while the queue retains it (as it was sent),
 * else the one its recording kept (texts over the recording's bounds cut). Null when neither has one.
 */
export async function readNodeOutcome(redis: RedisClient, prefix: string, nodeId: string): Promise<{ readonly message: unknown; readonly from: 'job' | 'recording' } | null> {
  const job = await readNodeJob(redis, prefix, nodeId);
  const returned = job ? validate(job.returnvalue) : null;
  if (returned?.ok && isOutcome(returned.value) && returned.value.id === outcomeMessageId(nodeId)) return { message: returned.value satisfies OutcomeMessage, from: 'job' };
  const recorded = (await readRecording(redis, prefix, rootIdOf(nodeId))).nodes.get(nodeId)?.outcome ?? null;
  return recorded ? { message: recorded.message, from: 'recording' } : null;
}

/** A run's timeline (every node's passes and waits on one axis); null for a run its tree does not know. */
export async function readTimeline(redis: RedisClient, prefix: string, rootId: string, signing: SigningConfig | null = null): Promise<RunTimeline | null> {
  const [tree, recording] = await Promise.all([readRunTree(redis, prefix, rootId, signing), readRecording(redis, prefix, rootId)]);
  return tree ? runTimeline(tree, recording) : null;
}

/** The node's job, while retained; null when gone, or its record does not parse. */
async function readNodeJob(redis: RedisClient, prefix: string, nodeId: string): Promise<NodeJob | null> {
  const finder = new JobFinder(redis, prefix);
  try {
    const found = await finder.find(nodeId);
    return found ? { data: found.job.data as unknown, returnvalue: found.job.returnvalue as unknown } : null;
  } catch (error) {
    if (error instanceof ReplyError || error instanceof SyntaxError || error instanceof TypeError) return null;
    throw error;
  } finally {
    await finder.close();
  }
}
