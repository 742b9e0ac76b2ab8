import { readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// What a package publishes is its dist/: tests and test harnesses are built for no one.
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function filesUnder(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => (entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)]));
}

describe('the built output', () => {
  it('holds no test files (after `npm run clean && npm run build`, if an older build left some)', () => {
    const workspaces = ['packages', 'apps'].flatMap((group) => readdirSync(join(ROOT, group)).map((name) => join(ROOT, group, name))).concat(join(ROOT, 'test'));
    const tests = workspaces
      .flatMap((workspace) => filesUnder(join(workspace, 'dist')))
      .filter((file) => /\.test\.(js|d\.ts)$|fleet-harness/.test(file))
      .map((file) => relative(ROOT, file));
    expect(tests).toEqual([]);
  });
});
