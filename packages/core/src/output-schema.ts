import { createRequire } from 'node:module';
import { ERROR_TYPES, TierflowError } from '@tierflow/protocol';
import type { Ajv2020, ErrorObject, Options, ValidateFunction } from 'ajv/dist/2020.js';
import type { RegExpEngine } from 'ajv/dist/types/index.js';
import type { RE2JS } from 're2js';

/**
 * `expected_output_schema` (docs/protocol.md#expected-output-schemas): a JSON Schema a
 * delegation's result must match. Schemas are compiled once and kept (by their JSON text), so
 * checking a result is one function call; compiling is what costs, and a tier sees the same few
 * schemas again and again.
 */

/** How a result fared against its schema. */
export type OutputCheck =
  | { readonly ok: true }
  | { readonly ok: false; readonly kind: typeof ERROR_TYPES.formatMismatch; readonly mismatches: readonly string[] }
  | { readonly ok: false; readonly kind: typeof ERROR_TYPES.invalidOutputSchema; readonly reason: string };

type Compiled = { readonly ok: true; readonly validate: ValidateFunction } | { readonly ok: false; readonly reason: string };

/**
 * `pattern` and `patternProperties` run on RE2 (re2js), whose matching time is linear in the input:
 * a pattern such as `^(a|aa)+$`, which JavaScript's backtracking engine takes hours over on a
 * long string, cannot hold a worker's event loop. RE2 has no backreferences and no lookaround, so
 * a schema that uses them does not compile: it is refused with the reason. (Formats are not
 * checked at all, so `format: "regex"` runs nothing.)
 */
function linearRegExp(re2: typeof RE2JS): RegExpEngine {
  return Object.assign(
    (pattern: string) => {
      let compiled: RE2JS;
      try {
        compiled = re2.compile(re2.translateRegExp(pattern));
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw TierflowError.permanent(`pattern ${JSON.stringify(pattern)} cannot be used: patterns are matched in linear time (RE2), without backreferences or lookaround (${reason})`, {
          code: ERROR_TYPES.invalidOutputSchema,
          cause: error,
        });
      }
      // Ajv keys its compiled patterns by toString(): it must name the pattern.
      return { test: (text: string) => compiled.test(text), toString: () => pattern };
    },
    { code: 're2js' },
  );
}

/**
 * Ajv and RE2 are loaded when the first schema is compiled, not when the process starts: most
 * delegations carry no schema, and loading them was about a tenth of every worker's start-up.
 * `require`, since compiling is synchronous (zod refinements call it); both ship CommonJS.
 */
let ajv: Ajv2020 | undefined;
function schemaCompiler(): Ajv2020 {
  if (ajv) return ajv;
  const require = createRequire(import.meta.url);
  const { Ajv2020: AjvClass } = require('ajv/dist/2020.js') as { Ajv2020: new (options: Options) => Ajv2020 };
  const { RE2JS: re2 } = require('re2js') as { RE2JS: typeof RE2JS };
  // Every error, not the first; unknown keywords and formats pass (strict: false), as a sender's
  // schema may carry annotations of its own; `$id`s are not registered, so two senders' schemas never clash.
  ajv = new AjvClass({ allErrors: true, strict: false, validateFormats: false, addUsedSchema: false, code: { regExp: linearRegExp(re2) } });
  // 2020-12 is the default; a schema that names draft-07 (common in tooling) is read too.
  ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-07.json') as object);
  return ajv;
}

/** Compiled schemas (or why they would not compile), by JSON text; the oldest goes past the bound. */
const cache = new Map<string, Compiled>();
export const OUTPUT_SCHEMA_CACHE_SIZE = 256;

/** Compiles a schema, or answers from the cache. */
export function compileOutputSchema(schema: Readonly<Record<string, unknown>>): Compiled {
  const key = JSON.stringify(schema);
  const hit = cache.get(key);
  if (hit) return hit;
  let compiled: Compiled;
  try {
    compiled = { ok: true, validate: schemaCompiler().compile(schema) };
  } catch (error) {
    compiled = { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
  if (cache.size >= OUTPUT_SCHEMA_CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(key, compiled);
  return compiled;
}

/** Checks `value` against `schema`: ok, every mismatch (`$.path: message`), or why the schema itself is unusable. */
export function checkOutput(schema: Readonly<Record<string, unknown>>, value: unknown): OutputCheck {
  const compiled = compileOutputSchema(schema);
  if (!compiled.ok) return { ok: false, kind: ERROR_TYPES.invalidOutputSchema, reason: compiled.reason };
  if (compiled.validate(value)) return { ok: true };
  return { ok: false, kind: ERROR_TYPES.formatMismatch, mismatches: (compiled.validate.errors ?? []).map(describeMismatch) };
}

/** `$.artifacts[0].artifact_type: must be equal to constant "code"`, in the protocol's own path style. */
export function describeMismatch(error: ErrorObject): string {
  const path = `$${error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : /^[A-Za-z_][A-Za-z0-9_]*$/.test(part) ? `.${part}` : `[${JSON.stringify(part)}]`))
    .join('')}`;
  const params = error.params as { missingProperty?: string; additionalProperty?: string; allowedValues?: unknown[]; allowedValue?: unknown };
  if (error.keyword === 'required') return `${path}: ${params.missingProperty ?? '?'} is required`;
  if (error.keyword === 'additionalProperties') return `${path}: ${params.additionalProperty ?? '?'} is not allowed`;
  if (error.keyword === 'enum') return `${path}: must be one of ${JSON.stringify(params.allowedValues)}`;
  if (error.keyword === 'const') return `${path}: must be ${JSON.stringify(params.allowedValue)}`;
  return `${path}: ${error.message ?? error.keyword}`;
}
