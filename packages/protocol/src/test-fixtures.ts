import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The protocol's complete message examples, kept verbatim as fixtures. */
export const SEED_FIXTURE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'seed-000');

export function seedExampleFiles(): string[] {
  return readdirSync(SEED_FIXTURE_DIR).filter((file) => file.endsWith('.json'));
}

/** Partial example snippets (not complete messages). */
export const SEED_FRAGMENT_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'seed-000-fragments');

export function seedExampleText(file: string): string {
  return readFileSync(join(SEED_FIXTURE_DIR, file), 'utf8');
}

/** A fresh, mutable copy of a complete message example. */
export function seedExample(file: string): Record<string, unknown> & { payload: Record<string, unknown> } {
  return JSON.parse(seedExampleText(file)) as Record<string, unknown> & { payload: Record<string, unknown> };
}

/** Every path to a value in `value` (objects and arrays walked), root excluded. */
export function valuePaths(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== 'object' || value === null) return [];
  const keys = Array.isArray(value) ? value.map((_, index) => index) : Object.keys(value);
  return keys.flatMap((key) => [[...at, key], ...valuePaths((value as Record<string | number, unknown>)[key], [...at, key])]);
}

/** A copy of `value` with the value at `path` replaced (or, for `undefined` in an object, deleted). */
export function replaced(value: unknown, path: (string | number)[], replacement: unknown): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path.at(-1)!;
  if (replacement === undefined && !Array.isArray(node)) delete node[last];
  else node[last] = replacement;
  return copy;
}
