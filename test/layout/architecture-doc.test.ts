import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// docs/architecture.md's "Where to add" table sends a newcomer to files by path: each must exist.
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('docs/architecture.md', () => {
  it('names only files and folders that exist in "Where to add"', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
    const table = doc.slice(doc.indexOf('## Where to add'), doc.indexOf('\n## ', doc.indexOf('## Where to add') + 1));
    const paths = [...table.matchAll(/`((?:packages|apps)\/[^`\s]+)`/g)].map((match) => match[1]!);
    expect(paths.length).toBeGreaterThan(10);
    expect(paths.filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
  });
});
