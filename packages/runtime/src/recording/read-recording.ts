import type { RedisClient } from '@tierflow/beads';
import { ReplyError } from 'ioredis';
import { recordKey } from '../redis/keys.js';
import { nodeRecords, parseRecordEntries, type RunRecording } from './node-record.js';

/** The most entries one read takes of a run's recording: a run of thousands of nodes, each with a few passes and calls. */
const MAX_ENTRIES = 100_000;

/** A run's recording (docs/operations.md#recording), by node; empty when nothing was recorded, or the key holds something else. */
export async function readRecording(redis: RedisClient, prefix: string, rootId: string): Promise<RunRecording> {
  let raw: [string, string[]][];
  try {
    raw = await redis.xrange(recordKey(prefix, rootId), '-', '+', 'COUNT', MAX_ENTRIES);
  } catch (error) {
    if (error instanceof ReplyError) return { nodes: new Map(), skipped: 0 };
    throw error;
  }
  const { entries, skipped } = parseRecordEntries(raw);
  return { nodes: nodeRecords(entries), skipped };
}
