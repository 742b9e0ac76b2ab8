import { z } from 'zod';
import { redisUrlProblem } from '../redis/redis-url.js';

/**
 * The building blocks of configuration: each reads one environment variable's text (never empty:
 * the reader drops empty values, so they count as unset) into a typed value, or says in one
 * phrase what the variable must be. Library options use {@link wholeNumber} with the same ranges,
 * so a setting has one set of bounds however it arrives.
 */

/** What a whole number counts, for messages. */
export type WholeUnit = 'milliseconds' | 'bytes' | 'count';

/** The bounds of a whole-number setting, inclusive. */
export interface WholeRange {
  readonly unit: WholeUnit;
  readonly min: number;
  readonly max: number;
}

/** Node fires a timer set for longer than this at once: durations that become timers stay within it (about 24.8 days). */
export const MAX_TIMER_MS = 2_147_483_647;
/** Ten years: a retention beyond it is a typo, not a plan. */
export const MAX_RETENTION_MS = 10 * 365 * 24 * 3600_000;
/** Ten thousand: workers, slots or tries beyond it are a typo. */
export const MAX_COUNT = 10_000;

/** `a whole number of milliseconds, at least 1 and at most 2147483647`. */
export function describeWhole(range: WholeRange): string {
  const what = range.unit === 'count' ? 'a whole number' : `a whole number of ${range.unit}`;
  return `${what}, at least ${range.min} and at most ${range.max}`;
}

function inRange(value: number, range: WholeRange): boolean {
  return Number.isSafeInteger(value) && value >= range.min && value <= range.max;
}

/** A whole number within `range`, as a library caller passes it. */
export function wholeNumber(range: WholeRange) {
  const message = `must be ${describeWhole(range)}`;
  return z.number({ error: message }).refine((value) => inRange(value, range), { message });
}

/**
 * A whole number within `range`, written as decimal digits and nothing else: `Number()` would also
 * read `1e3`, `0x10`, ` 5` and `Infinity`, and a setting should be written as it is meant.
 */
export function envWhole(range: WholeRange) {
  const message = `must be ${describeWhole(range)}`;
  return z.string().transform((text, ctx) => {
    const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
    if (inRange(value, range)) return value;
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  });
}

/** A number from 0 to 1, written as a decimal (`0.8`, `.5`, `1`). */
export function envProbability() {
  const message = 'must be a number from 0 to 1';
  return z.string().transform((text, ctx) => {
    const value = /^(\d+(\.\d*)?|\.\d+)$/.test(text) ? Number(text) : Number.NaN;
    if (value >= 0 && value <= 1) return value;
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  });
}

/** One of a few words. */
export function envChoice<const T extends readonly [string, ...string[]]>(choices: T) {
  return z.enum(choices, { error: `must be one of ${choices.join(', ')}` });
}

/** A redis:// or rediss:// URL that ioredis reads as it is meant (see {@link redisUrlProblem}). */
export function envRedisUrl() {
  return z.string().superRefine((url, ctx) => {
    const problem = redisUrlProblem(url);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
}

/** Any text: a name, a path, a password. */
export function envText() {
  return z.string();
}

/** An http:// or https:// URL, such as a model endpoint's base URL (`localhost:8000/v1` is not: its scheme would be `localhost:`). */
export function envHttpUrl() {
  return z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' });
}
