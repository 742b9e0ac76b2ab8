import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { OBJECTIVE_SCHEMA_FILE, objectiveJsonSchema, objectiveSchemaFileText } from './objective-json-schema.js';
import { objectiveFileSchema } from '../model/objective.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SCHEMA_PATH = join(HERE, '..', '..', 'schemas', OBJECTIVE_SCHEMA_FILE);
const EXAMPLES = join(HERE, '..', '..', '..', '..', 'examples');

function examples(): [string, unknown][] {
  const top = readdirSync(EXAMPLES).filter((file) => file.endsWith('.json'));
  return [...top, join('binary-search', 'objective.json')].map((file) => [file, JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')) as unknown]);
}

describe('the committed objective schema file', () => {
  it('is exactly what the zod schema generates (run `npm run schemas` when this fails)', () => {
    expect(readFileSync(SCHEMA_PATH, 'utf8')).toBe(objectiveSchemaFileText());
  });
});

describe('the examples', () => {
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false });
  const validate = ajv.compile(objectiveJsonSchema());

  it.each(examples())('%s names the schema, and both the JSON Schema and the runtime accept it', (file, example) => {
    expect((example as { $schema?: string }).$schema).toMatch(/packages\/runtime\/schemas\/objective\.schema\.json$/);
    expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
    expect(objectiveFileSchema.safeParse(example).success).toBe(true);
  });

  it('a misspelt field is refused by the JSON Schema, as by the runtime', () => {
    const typo = { objective: 'o', priorty: 1 };
    expect(validate(typo)).toBe(false);
    expect(objectiveFileSchema.safeParse(typo).success).toBe(false);
  });
});
