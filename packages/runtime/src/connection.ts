import { Redis } from 'ioredis';

/**
 * An ioredis client as BullMQ needs it: commands wait through reconnects instead of failing.
 * While Redis is unreachable ioredis retries on its own; we say so once per outage rather than on
 * every retry.
 */
export function connect(redisUrl: string, warn: (message: string) => void = (message) => process.stderr.write(`${message}\n`)): Redis {
  const client = new Redis(redisUrl, { maxRetriesPerRequest: null });
  let down = false;
  client.on('error', (error: Error) => {
    if (down) return;
    down = true;
    warn(`redis ${redactUrl(redisUrl)} unreachable (${error.message}); retrying`);
  });
  client.on('ready', () => {
    down = false;
  });
  return client;
}

/** The URL without its password, for logs. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}
