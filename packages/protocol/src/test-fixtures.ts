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
