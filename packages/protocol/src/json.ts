import { z } from 'zod';

/** A JSON object with free-form values: task_data, metadata, resources_used. */
export const jsonObjectSchema = z.record(z.string(), z.unknown());
export type JsonObject = z.infer<typeof jsonObjectSchema>;

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Zod skips refinements once a schema has issues; cross-field rules pass this as `when` so they
 * still run (on anything object-shaped) and `validate()` reports every error at once.
 */
export const whenObject = (payload: { value: unknown }): boolean => isJsonObject(payload.value);

/**
 * The named fields of a loose object type, without its `[key: string]: unknown` catch-all, so that
 * `Omit` and `Pick` keep working and a misspelt field is a compile error where code writes messages.
 */
export type KnownFields<T> = { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };
