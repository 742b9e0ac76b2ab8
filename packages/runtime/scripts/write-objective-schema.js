// Writes schemas/objective.schema.json from the zod schema (run `npm run schemas` at the root).
// A test fails when the committed file differs from what this would write.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OBJECTIVE_SCHEMA_FILE, objectiveSchemaFileText } from '../dist/admin-api.js';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'schemas');
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, OBJECTIVE_SCHEMA_FILE), objectiveSchemaFileText());
console.log(`wrote ${join(dir, OBJECTIVE_SCHEMA_FILE)}`);
