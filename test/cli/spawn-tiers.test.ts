import { readFileSync } from 'node:fs';
import { spawnTiers } from '@tierflow/cli';
import { describe, expect, it } from 'vitest';

/** The command line a process was started with (Linux). */
function commandLine(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
}

// Nothing listens on port 9: the worker keeps retrying its connection, which is all this needs.
const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ ...process.env, REDIS_URL: 'redis://127.0.0.1:9', TIERFLOW_LOG: 'silent', ...extra });

describe('spawnTiers', () => {
  it("sizes each worker's young generation and slows its old one's growth, so a busy worker stays under 200 MB", async () => {
    const tiers = spawnTiers(env({ NODE_OPTIONS: '' }), () => undefined, ['fleet']);
    try {
      expect(commandLine(tiers.children.get('fleet')!.pid!)).toEqual(expect.arrayContaining(['--max-semi-space-size=16', '--heap-growing-percent=30']));
    } finally {
      await tiers.stop();
    }
  });

  it('leaves the size to NODE_OPTIONS when it sets one', async () => {
    const tiers = spawnTiers(env({ NODE_OPTIONS: '--max-semi-space-size=4' }), () => undefined, ['fleet']);
    try {
      const line = commandLine(tiers.children.get('fleet')!.pid!);
      expect(line.join(' ')).not.toContain('--max-semi-space-size');
      expect(line).toContain('--heap-growing-percent=30');
    } finally {
      await tiers.stop();
    }
  });
});
