import { jsonSchemaOf, WIRE_TYPE_NAMES } from './json-schema.js';

/** The committed JSON Schema files, by file name, with their exact text. */
export function jsonSchemaFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of WIRE_TYPE_NAMES) files[`${name}.schema.json`] = `${JSON.stringify(jsonSchemaOf(name), null, 2)}\n`;
  return files;
}
