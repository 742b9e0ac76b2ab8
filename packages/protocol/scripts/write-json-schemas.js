// Writes schemas/<type>.schema.json from the zod schemas (run `npm run schemas` at the root).
// A test fails when the committed files differ from what this would write.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jsonSchemaFiles } from '../dist/json-schema-files.js';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'schemas');
mkdirSync(dir, { recursive: true });
for (const file of readdirSync(dir)) if (file.endsWith('.schema.json')) rmSync(join(dir, file));
for (const [file, text] of Object.entries(jsonSchemaFiles())) writeFileSync(join(dir, file), text);
console.log(`wrote ${Object.keys(jsonSchemaFiles()).length} JSON Schema files to ${dir}`);
