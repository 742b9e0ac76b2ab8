import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { jsonSchemaFiles } from './json-schema-files.js';
import { jsonSchemaOf, WIRE_TYPE_NAMES } from './json-schema.js';
import { seedExample, seedExampleFiles } from './test-fixtures.js';

const SCHEMA_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'schemas');

describe('committed JSON Schema files', () => {
  it('are exactly what the zod schemas generate (run `npm run schemas` when this fails)', () => {
    const committed = Object.fromEntries(
      readdirSync(SCHEMA_DIR)
        .filter((file) => file.endsWith('.schema.json'))
        .map((file) => [file, readFileSync(join(SCHEMA_DIR, file), 'utf8')]),
    );
    expect(committed).toEqual(jsonSchemaFiles());
  });

  it('cover every wire type', () => {
    expect(WIRE_TYPE_NAMES).toEqual(
      expect.arrayContaining([
        'message',
        'delegation-payload',
        'outcome-payload',
        'cancellation-payload',
        'artifact',
        'tier-level',
        'outcome-status',
        'parallel-delegation',
        'aggregated-outcome',
        'child-outcome-summary',
      ]),
    );
  });
});

describe('the generated JSON Schema, used by a standard validator', () => {
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false });
  const validateMessage = ajv.compile(jsonSchemaOf('message'));

  it.each(seedExampleFiles())('accepts %s', (file) => {
    expect(validateMessage(seedExample(file)), JSON.stringify(validateMessage.errors)).toBe(true);
  });

  it.each<[string, (message: ReturnType<typeof seedExample>) => void]>([
    ['confidence above 1', (m) => (m.payload.confidence = 1.5)],
    ['an unknown status', (m) => (m.payload.status = 'done')],
    ['a missing summary', (m) => delete m.payload.summary],
    ['an unknown tier', (m) => (m.target_tier = 'INTERN')],
  ])('rejects %s', (_name, mutate) => {
    const message = seedExample('fleet-to-dispatcher.json');
    mutate(message);
    expect(validateMessage(message)).toBe(false);
  });
});
