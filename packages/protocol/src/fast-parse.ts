import type { z } from 'zod';
import { util, type $ZodCheck, type $ZodType } from 'zod/v4/core';

/** What a fast parser answers when zod would refuse the input: the caller then asks zod, for its errors. */
export const REFUSED: unique symbol = Symbol('refused');

/** Parses like the schema it was made from: zod's output for an input zod accepts, else {@link REFUSED}. */
export type FastParse = (input: unknown) => unknown;

/**
 * A parser made once per schema from zod's own definition of it, for the hot path: checking the
 * messages every hop reads and sends. zod parses by passing a payload object through a closure per
 * node and collecting issues as it goes; in a worker, between other work, that cost 50–250 µs a
 * message (test/bench/RESULTS.md). The parser made here is a function per node with no issue
 * bookkeeping (for an object, code generated with its keys written out). It only says yes or no:
 * an input it refuses is parsed again by zod, whose errors the caller reports, so error messages
 * and paths stay zod's.
 *
 * It answers exactly as zod does, by construction: the node kinds it knows (objects, arrays,
 * records of string keys, strings, numbers, booleans, null, enums, literals, optional, nullable,
 * default) follow zod's parse of that kind, every check (lengths, formats, regexes, refinements)
 * is zod's own check object, run on the parsed value, unless a plain predicate (a bound, a
 * length, a pattern) says first that it surely passes; any other kind (unions, pipes, lazy, …), or
 * a known kind with an option the parser does not follow (coercion, symbol keys), is parsed by zod
 * itself. `fast-parse.test.ts` compares both on every protocol schema over valid and broken inputs.
 * Nothing in zod promises these internals: zod is held to patch releases in package.json, and
 * `fast-parse-zod.test.ts` is what fails when an upgrade moves them.
 */
export function fastParser(schema: $ZodType): FastParse {
  const known = made.get(schema);
  if (known) return known;
  // A schema that holds itself (a getter in an object's shape) meets itself while it is made: that
  // inner use calls the parser once it is finished.
  let parse: FastParse | undefined;
  made.set(schema, (input) => parse!(input));
  try {
    parse = make(schema);
  } catch (error) {
    made.delete(schema);
    throw error;
  }
  made.set(schema, parse);
  return parse;
}

/**
 * `schema.safeParse(input, params)`, with a valid input parsed by the schema's fast parser: zod
 * parses only an input the fast parser refuses (or throws on), for its errors.
 */
export function fastSafeParse<S extends z.ZodType>(schema: S, input: unknown, params?: z.core.ParseContext<z.core.$ZodIssue>): z.ZodSafeParseResult<z.output<S>> {
  let value: unknown = REFUSED;
  try {
    value = fastParser(schema)(input);
  } catch {
    // A hostile input (a throwing getter, say): zod's parse meets it again and reports it.
  }
  return value === REFUSED ? schema.safeParse(input, params) : { success: true, data: value as z.output<S> };
}

const made = new WeakMap<$ZodType, FastParse>();
const SYNC = { async: false } as const;
/** The nodes parsed by zod itself: a zod release that renames what this module reads sends nodes here. */
const leftToZod = new WeakSet<$ZodType>();

/** Whether a parser made so far hands this node (its children aside) to zod's own parse. For the tests that pin the fast path. */
export function isLeftToZod(schema: $ZodType): boolean {
  return leftToZod.has(schema);
}

function make(schema: $ZodType): FastParse {
  const own = kindParser(schema);
  return own ? withChecks(schema, own) : byZod(schema);
}

/** The node parsed by zod itself, checks included. */
function byZod(schema: $ZodType): FastParse {
  leftToZod.add(schema);
  return (input) => {
    const result = schema._zod.run({ value: input, issues: [] }, SYNC);
    if (result instanceof Promise) throw new Error('an asynchronous schema cannot be parsed synchronously');
    return result.issues.length === 0 ? result.value : REFUSED;
  };
}

/**
 * zod runs a node's checks after its own parse, the node itself first when it is a check too (a
 * format). A check of a kind whose rule is plain (a bound, a length, a regex) first asks a
 * predicate that is true only where zod's check surely passes; zod's check object runs where it
 * is not, so anything in doubt (a string's length counted in code points, say) is zod's to say.
 */
function withChecks(schema: $ZodType, parse: FastParse): FastParse {
  const checks: $ZodCheck[] = [...(schema._zod.def.checks ?? [])];
  if (schema._zod.traits.has('$ZodCheck')) checks.unshift(schema as unknown as $ZodCheck);
  if (checks.length === 0) return parse;
  const steps = checks.map((check) => ({ check, passes: surePass(check) }));
  return (input) => {
    const value = parse(input);
    if (value === REFUSED) return REFUSED;
    // Made only when one of zod's check objects runs: it is what they read and write.
    let payload: { value: unknown; issues: unknown[] } | null = null;
    for (const { check, passes } of steps) {
      if (passes?.(payload ? payload.value : value)) continue;
      payload ??= { value, issues: [] };
      const when = check._zod.def.when;
      if (when && !when(payload as never)) continue;
      const ran = check._zod.check(payload as never) as unknown;
      if (ran instanceof Promise) throw new Error('an asynchronous check cannot run synchronously');
      if (payload.issues.length > 0) return REFUSED;
    }
    return payload ? payload.value : value;
  };
}

/** String formats whose check is their pattern alone (zod's $ZodCheckStringFormat, not replaced). */
const PATTERN_FORMATS = ['$ZodCheckRegex', '$ZodISODateTime', '$ZodISODate', '$ZodISOTime'];

/**
 * A predicate true only where `check` surely passes, for the kinds whose rule is plain; null for
 * the others. Where it is false, zod's check decides.
 */
function surePass(check: $ZodCheck): ((value: unknown) => boolean) | null {
  const def = check._zod.def as unknown as Def;
  // Every zod instance has its traits (the classes it was made by); the check's type does not name them.
  const { traits } = check._zod as unknown as { traits: ReadonlySet<string> };
  const bound = def.value;
  switch (def.check) {
    case 'greater_than':
      if (!traits.has('$ZodCheckGreaterThan') || typeof bound !== 'number') return null;
      return def.inclusive ? (value) => typeof value === 'number' && value >= bound : (value) => typeof value === 'number' && value > bound;
    case 'less_than':
      if (!traits.has('$ZodCheckLessThan') || typeof bound !== 'number') return null;
      return def.inclusive ? (value) => typeof value === 'number' && value <= bound : (value) => typeof value === 'number' && value < bound;
    case 'min_length': {
      const minimum = def.minimum;
      if (!traits.has('$ZodCheckMinLength') || typeof minimum !== 'number') return null;
      // zod counts a string in code points, at most two units each: twice the floor in units always clears it.
      return (value) => (typeof value === 'string' ? value.length >= 2 * minimum : Array.isArray(value) && value.length >= minimum);
    }
    case 'max_length': {
      const maximum = def.maximum;
      if (!traits.has('$ZodCheckMaxLength') || typeof maximum !== 'number') return null;
      // A string that fits in units fits in code points.
      return (value) => (typeof value === 'string' || Array.isArray(value)) && value.length <= maximum;
    }
    case 'number_format':
      return traits.has('$ZodCheckNumberFormat') && def.format === 'safeint' ? (value) => Number.isSafeInteger(value) : null;
    case 'string_format': {
      const pattern = def.pattern;
      if (!(pattern instanceof RegExp) || !PATTERN_FORMATS.some((trait) => traits.has(trait))) return null;
      return (value) => {
        if (typeof value !== 'string') return false;
        pattern.lastIndex = 0;
        return pattern.test(value);
      };
    }
    default:
      return null;
  }
}

type Def = Record<string, unknown> & { readonly type: string };

/** The parse of the node's own kind, or null for a kind (or an option of it) left to zod. */
function kindParser(schema: $ZodType): FastParse | null {
  const def = schema._zod.def as unknown as Def;
  if (def.coerce) return null;
  switch (def.type) {
    case 'string':
      return (input) => (typeof input === 'string' ? input : REFUSED);
    case 'number':
      // zod's number refuses NaN and ±Infinity; an int is a number with a format check.
      return (input) => (typeof input === 'number' && Number.isFinite(input) ? input : REFUSED);
    case 'boolean':
      return (input) => (typeof input === 'boolean' ? input : REFUSED);
    case 'null':
      return (input) => (input === null ? null : REFUSED);
    case 'unknown':
    case 'any':
      return (input) => input;
    case 'enum':
    case 'literal': {
      const values = schema._zod.values!;
      return (input) => (values.has(input as never) ? input : REFUSED);
    }
    case 'optional': {
      const inner = def.innerType as $ZodType;
      // An exact optional hands undefined to its inner type; a defaulted inner substitutes for it.
      if (schema._zod.traits.has('$ZodExactOptional') || inner._zod.optin === 'defaulted') return null;
      const parse = fastParser(inner);
      return (input) => (input === undefined ? undefined : parse(input));
    }
    case 'nullable': {
      const parse = fastParser(def.innerType as $ZodType);
      return (input) => (input === null ? null : parse(input));
    }
    case 'default': {
      const parse = fastParser(def.innerType as $ZodType);
      return (input) => {
        if (input === undefined) return def.defaultValue;
        const value = parse(input);
        return value === undefined ? def.defaultValue : value;
      };
    }
    case 'array': {
      const element = fastParser(def.element as $ZodType);
      return (input) => {
        if (!Array.isArray(input)) return REFUSED;
        const output = new Array<unknown>(input.length);
        for (let index = 0; index < input.length; index++) {
          const value = element(input[index]);
          if (value === REFUSED) return REFUSED;
          output[index] = value;
        }
        return output;
      };
    }
    case 'record':
      return recordParser(def);
    case 'object':
      return objectParser(def);
    default:
      return null;
  }
}

/** A record whose keys are any strings (zod's `z.record(z.string(), …)`), as zod's parse reads it. */
function recordParser(def: Def): FastParse | null {
  const keyType = def.keyType as $ZodType;
  const keyDef = keyType._zod.def as unknown as Def;
  if (keyDef.type !== 'string' || keyDef.coerce || (keyDef.checks as unknown[] | undefined)?.length || keyType._zod.traits.has('$ZodCheck') || def.mode !== undefined) return null;
  const valueOf = fastParser(def.valueType as $ZodType);
  return (input) => {
    if (!util.isPlainObject(input)) return REFUSED;
    // zod reads Reflect.ownKeys and skips what is not enumerable: an enumerable symbol key is
    // refused by the string key type; the string keys are Object.keys', in the same order.
    const symbols = Object.getOwnPropertySymbols(input);
    if (symbols.length > 0 && symbols.some((symbol) => Object.prototype.propertyIsEnumerable.call(input, symbol))) return REFUSED;
    const output: Record<string, unknown> = {};
    for (const key of Object.keys(input)) {
      if (key === '__proto__') continue;
      const value = valueOf((input as Record<string, unknown>)[key]);
      if (value === REFUSED) return REFUSED;
      output[key] = value;
    }
    return output;
  };
}

/**
 * An object: its shape's keys in order, then, with a catch-all, the others (zod's
 * handlePropertyResult and handleCatchall). The parser is generated as code with each key
 * written out, as zod's own fast path is: a loop storing under a different key each time made
 * every store a generic one. Where code cannot be generated, zod parses the object.
 */
function objectParser(def: Def): FastParse | null {
  const shape = def.shape as Record<string, $ZodType>;
  if (Object.getOwnPropertySymbols(shape).length > 0 || Object.hasOwn(shape, '__proto__')) return null;
  const keys = Object.keys(shape);
  const parsers = keys.map((key) => fastParser(shape[key]!));
  const catchall = def.catchall as $ZodType | undefined;
  const strict = catchall?._zod.def.type === 'never';
  const rest = catchall && !strict ? fastParser(catchall) : null;
  const fields = keys.map((key, index) => fieldCode(JSON.stringify(key), index, shape[key]!._zod.optin, shape[key]!._zod.optout)).join('\n');
  const others = !catchall
    ? ''
    : strict
      ? 'for (const k in s) if (!known.has(k)) return R;'
      : "for (const k in s) { if (known.has(k) || k === '__proto__') continue; v = rest(s[k]); if (v === R) return R; o[k] = v; }";
  const body = `return function parseObject(s) {
  if (typeof s !== 'object' || s === null || Array.isArray(s)) return R;
  const o = {};
  let v, pr;
${fields}
${others}
  return o;
};`;
  try {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the code is made here from the shape's keys, written as JSON string literals
    const make = new Function('R', 'p', 'known', 'rest', body) as (...args: unknown[]) => FastParse;
    return make(REFUSED, parsers, new Set(keys), rest);
  } catch {
    return null;
  }
}

/**
 * One field, as zod's handlePropertyResult treats it given the field's optin and optout: an
 * absent optional field is skipped, an absent required one refused, a refused value refused
 * unless the field is optional and absent, and undefined kept where the key was given or a
 * default stands for it.
 */
function fieldCode(key: string, index: number, optin: string | undefined, optout: string | undefined): string {
  const parse = `v = p[${index}](s[${key}]);`;
  if (optin === 'optional' && optout === 'optional') return `if (${key} in s) { ${parse} if (v === R) return R; o[${key}] = v; }`;
  if (optin === undefined) return `if (!(${key} in s)) return R; ${parse} if (v === R) return R; o[${key}] = v;`;
  const refused = optout === 'optional' ? 'if (pr) return R;' : 'return R;';
  const empty = optin === 'defaulted' && optout !== 'optional' ? `o[${key}] = undefined;` : `if (pr) o[${key}] = undefined;`;
  return `pr = ${key} in s; ${parse} if (v === R) { ${refused} } else if (v !== undefined) o[${key}] = v; else ${empty}`;
}
