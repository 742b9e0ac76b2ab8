import { Redis } from 'ioredis';

/**
 * An ioredis client for `url` with `maxRetriesPerRequest: null`, which BullMQ requires of the
 * connections it blocks on. The caller closes it (`quit()` or `disconnect()`).
 */
export function redisClient(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null });
}
