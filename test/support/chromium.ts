import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Browser, Page } from 'playwright-core';

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

/**
 * A fresh page (its own cookies) of `browser`, and every console error, page error and request
 * beyond the server (127.0.0.1) it makes: everything a dashboard page needs comes from its server.
 */
export async function watchedPage(browser: Browser, viewport = { width: 1280, height: 900 }): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('request', (request) => {
    if (new URL(request.url()).hostname !== '127.0.0.1') problems.push(`request beyond the server: ${request.url()}`);
  });
  return { page, problems };
}
