import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The runtime's public surface, by audience: `@tierflow/runtime` for applications (workers,
// clients, options, errors, the handler contract), `/policy` for authors of policies and
// interceptors, `/admin` for the CLI and the server. Each entry point's names are listed in
// packages/runtime/public-api.json, so that a name added or removed is a decision someone made.
const RUNTIME = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'packages', 'runtime');
const ENTRIES = { '@tierflow/runtime': 'index.ts', '@tierflow/runtime/policy': 'policy-api.ts', '@tierflow/runtime/admin': 'admin-api.ts' } as const;

function exportedNames(file: string): string[] {
  const text = readFileSync(join(RUNTIME, 'src', file), 'utf8');
  return [...text.matchAll(/export (?:type )?\{([^}]*)\} from/g)]
    .flatMap((match) => match[1]!.split(','))
    .map((name) => name.replace(/\btype\b/, '').trim())
    .filter((name) => name !== '')
    .sort();
}

describe('the runtime’s entry points', () => {
  const listed = JSON.parse(readFileSync(join(RUNTIME, 'public-api.json'), 'utf8')) as Record<keyof typeof ENTRIES, string[]>;

  it.each(Object.entries(ENTRIES))('%s exports exactly the names packages/runtime/public-api.json lists', (entry, file) => {
    expect(exportedNames(file), `update packages/runtime/public-api.json if ${entry} is meant to change`).toEqual([...listed[entry as keyof typeof ENTRIES]].sort());
  });

  it('export each name from one entry point only', () => {
    const all = Object.values(ENTRIES).flatMap(exportedNames);
    expect(all.filter((name, index) => all.indexOf(name) !== index)).toEqual([]);
  });

  it('are all in package.json', () => {
    const pkg = JSON.parse(readFileSync(join(RUNTIME, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
    expect(Object.keys(pkg.exports)).toEqual(expect.arrayContaining(['.', './policy', './admin', './testing']));
  });
});
