import { Queue } from 'bullmq';
import type { RedisClient } from '@tierflow/beads';

/**
 * A BullMQ queue on a connection of ours. Its connection's errors are reported by the connection
 * itself, once an outage starts and then at a falling rate (outage-reports.ts); a queue re-emits
 * each one, and with no listener BullMQ prints every one of them with its stack, hundreds a minute
 * while Redis is away. So the queue's copies are let go of here.
 */
export function bullQueue(name: string, connection: RedisClient, prefix: string): Queue {
  const queue = new Queue(name, { connection, prefix });
  queue.on('error', () => undefined);
  return queue;
}
