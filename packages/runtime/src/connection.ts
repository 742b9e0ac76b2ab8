import { Redis } from 'ioredis';

/** An ioredis client as BullMQ needs it: commands wait through reconnects instead of failing. */
export function connect(redisUrl: string): Redis {
  return new Redis(redisUrl, { maxRetriesPerRequest: null });
}
