import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { objectiveFileSchema } from '@tierflow/runtime';
import { describe, expect, it } from 'vitest';

// `tierflow demo` enqueues every *.json directly in examples/: each must be an objective file.
const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));

describe('examples/', () => {
  it('holds only objective files at its top level, as the demo reads them', async () => {
    const files = (await readdir(EXAMPLES)).filter((name) => name.endsWith('.json'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const parsed = objectiveFileSchema.safeParse(JSON.parse(await readFile(join(EXAMPLES, file), 'utf8')));
      expect(parsed.success, `${file}: ${parsed.error?.message ?? ''}`).toBe(true);
    }
  });

  it('keeps each example project’s objective valid too', async () => {
    const objective = JSON.parse(await readFile(join(EXAMPLES, 'binary-search', 'objective.json'), 'utf8')) as unknown;
    expect(objectiveFileSchema.safeParse(objective).success).toBe(true);
  });
});
