import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The absolute path of `redis-server` on PATH, or `null` when it is not installed. */
export function findRedisServerBinary(): string | null {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, 'redis-server');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here; try the next directory.
    }
  }
  return null;
}

/** The error for a machine without redis-server, saying how to get it. */
export function redisServerMissing(): Error {
  return new Error(
    'redis-server is not on PATH: the Tierflow tests start a private Redis of their own. ' + 'Install it (Debian/Ubuntu: `apt-get install redis-server`; macOS: `brew install redis`) and try again.',
  );
}
