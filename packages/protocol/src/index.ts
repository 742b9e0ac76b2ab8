/**
 * The Tierflow wire format: the handoff protocol's envelope, payloads and aggregation types as
 * zod schemas (types derive from them), the version rules, and a validator that reports every error.
 *
 * ```ts
 * import { validate, formatValidationError } from '@tierflow/protocol';
 *
 * const result = validate(JSON.parse(text));
 * if (result.ok) route(result.value);
 * else for (const error of result.errors) console.error(formatValidationError(error));
 * ```
 */
export * from './agent-identity.js';
export * from './aggregation.js';
export * from './artifact.js';
export * from './canonical.js';
export * from './cascade-check.js';
export * from './errors.js';
export * from './identifiers.js';
export * from './json-schema-files.js';
export * from './json-schema.js';
export * from './json.js';
export * from './message.js';
export * from './payloads/cancellation.js';
export * from './payloads/delegation.js';
export * from './payloads/outcome.js';
export * from './signature.js';
export * from './statuses.js';
export * from './tiers.js';
export * from './validate.js';
export * from './version.js';

