import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The chromium on the PATH (`chromium`, as Debian names it, or `chromium-browser`). */
export function findChromium(): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    for (const name of ['chromium', 'chromium-browser']) {
      try {
        accessSync(join(dir, name), constants.X_OK);
        return join(dir, name);
      } catch {
        // not here
      }
    }
  }
  throw new Error('the dashboard tests need chromium on the PATH (apt-get install chromium)');
}
