import type { z } from 'zod';
import { TierflowError } from './errors.js';
import { fastSafeParse } from './fast-parse.js';
import { isJsonObject } from './json.js';
import { MAX_JSON_DEPTH, tooDeepAt } from './json-depth.js';
import { delegationMessageSchema, MESSAGE_SCHEMAS, payloadKind, type Message } from './message.js';
import { parseVersion, SUPPORTED_MAJOR_VERSIONS, unsupportedVersionMessage } from './version.js';

/** One problem with an input: where (a JSON path such as `$.payload.confidence`), what kind, and what is wrong. */
export interface ValidationError {
  readonly path: string;
  /** Zod's issue code (`invalid_type`, `too_big`, …) or one of ours (`direction`, `artifact_content`, `unsupported_version`, …). */
  readonly code: string;
  readonly message: string;
}

export type ValidationResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly errors: readonly ValidationError[] };

/** Thrown by {@link parseMessage}; carries every error. A bad message never becomes good by retrying. */
export class InvalidMessageError extends TierflowError {
  override readonly name = 'InvalidMessageError';
  readonly errors: readonly ValidationError[];

  constructor(errors: readonly ValidationError[]) {
    super(`invalid message: ${errors.map(formatValidationError).join('; ')}`, { code: 'invalid_message', retryable: false });
    this.errors = errors;
  }
}

export function formatValidationError(error: ValidationError): string {
  return `${error.path}: ${error.message}`;
}

/** `$.payload.artifacts[0].inline_content`; odd keys are quoted: `$["a key"]`. */
export function formatJsonPath(path: readonly PropertyKey[]): string {
  let out = '$';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) out += `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

/** Says "missing required field" rather than "expected string, received undefined". */
function messageOf(issue: z.core.$ZodIssue): string {
  if (issue.input !== undefined || issue.path.length === 0) return issue.message;
  if (issue.code === 'invalid_type') return `missing required field (expected ${issue.expected})`;
  if (issue.code === 'invalid_value') return `missing required field (one of ${issue.values.map(String).join(', ')})`;
  return `missing required field (${issue.message})`;
}

function toValidationErrors(error: z.ZodError): ValidationError[] {
  return error.issues.map((issue) => {
    const rule = issue.code === 'custom' ? (issue.params as { rule?: unknown } | undefined)?.rule : undefined;
    return { path: formatJsonPath(issue.path), code: typeof rule === 'string' ? rule : issue.code, message: messageOf(issue) };
  });
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/**
 * Validates any input against a schema and returns every error at once. Never throws: a hostile
 * input (a throwing getter, a Proxy) becomes an error too. A string is read as JSON text. A valid
 * input is parsed by the schema's fast parser (fast-parse.ts); only one it refuses goes through
 * zod's own parse, for the errors.
 */
export function validateWith<S extends z.ZodType>(schema: S, input: unknown): ValidationResult<z.output<S>> {
  try {
    const value = readInput(input);
    if (!value.ok) return value;
    const result = fastSafeParse(schema, value.value, { reportInput: true });
    return result.success ? { ok: true, value: result.data } : { ok: false, errors: toValidationErrors(result.error) };
  } catch (error) {
    return { ok: false, errors: [{ path: '$', code: 'unreadable', message: `the input could not be read: ${String(error)}` }] };
  }
}

function parseJson(text: string): ValidationResult<unknown> {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, errors: [{ path: '$', code: 'invalid_json', message: `not valid JSON: ${(error as Error).message}` }] };
  }
}

/**
 * The input as a value (a string is read as JSON text), refused when it nests deeper than
 * {@link MAX_JSON_DEPTH}: checked before any schema walks it, since the recursion after would
 * run out of stack on input that JSON.parse reads whole.
 */
function readInput(input: unknown): ValidationResult<unknown> {
  const parsed = typeof input === 'string' ? parseJson(input) : { ok: true as const, value: input };
  if (!parsed.ok) return parsed;
  const tooDeep = tooDeepAt(parsed.value);
  if (tooDeep === null) return parsed;
  return { ok: false, errors: [{ path: formatJsonPath(tooDeep), code: 'too_deep', message: `nested deeper than ${MAX_JSON_DEPTH} levels` }] };
}

/**
 * Validates a protocol message (an object, or JSON text) and returns every error at once, each
 * with its JSON path (docs/protocol.md#validating-messages). Never throws.
 *
 * - An unknown major version is refused with that one error: the rest cannot be judged by 1.x rules.
 * - An unknown minor version is accepted, and unknown fields are kept, so a parse → serialise
 *   round trip preserves them.
 * - The payload's kind is told by its fields, so errors point into the right payload shape.
 */
export function validate(input: unknown): ValidationResult<Message> {
  try {
    const parsed = readInput(input);
    if (!parsed.ok) return parsed;
    const value = parsed.value;
    if (!isJsonObject(value)) {
      return { ok: false, errors: [{ path: '$', code: 'invalid_type', message: `a message must be a JSON object, got ${describe(value)}` }] };
    }
    if (typeof value.version === 'string') {
      const version = parseVersion(value.version);
      if (version && !SUPPORTED_MAJOR_VERSIONS.includes(version.major)) {
        return {
          ok: false,
          errors: [{ path: '$.version', code: 'unsupported_version', message: unsupportedVersionMessage(value.version, version.major) }],
        };
      }
    }
    const kind = payloadKind(value.payload);
    if (kind) return validateWith(MESSAGE_SCHEMAS[kind], value);
    return unknownPayload(value);
  } catch (error) {
    return { ok: false, errors: [{ path: '$', code: 'unreadable', message: `the input could not be read: ${String(error)}` }] };
  }
}

/** Reports the envelope's own errors as well as the unrecognisable payload. */
function unknownPayload(value: Record<string, unknown>): ValidationResult<Message> {
  const envelope = validateWith(delegationMessageSchema, value);
  const envelopeErrors = envelope.ok ? [] : envelope.errors.filter((error) => !error.path.startsWith('$.payload') && error.code !== 'direction');
  const payloadError: ValidationError =
    value.payload === undefined
      ? { path: '$.payload', code: 'invalid_type', message: 'missing required field (expected a delegation, outcome or cancellation payload)' }
      : {
          path: '$.payload',
          code: 'unknown_payload',
          message: isJsonObject(value.payload)
            ? 'not a delegation (task_type, objective), an outcome (status) or a cancellation (target_message_id)'
            : `a payload must be a JSON object, got ${describe(value.payload)}`,
        };
  return { ok: false, errors: [...envelopeErrors, payloadError] };
}

/** Validates and returns the message, or throws {@link InvalidMessageError} with every error. */
export function parseMessage(input: unknown): Message {
  const result = validate(input);
  if (!result.ok) throw new InvalidMessageError(result.errors);
  return result.value;
}
