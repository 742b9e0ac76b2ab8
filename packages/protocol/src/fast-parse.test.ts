import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fastParser, fastSafeParse, REFUSED } from './fast-parse.js';
import * as protocol from './index.js';
import { replaced, seedExample, seedExampleFiles, valuePaths } from './test-fixtures.js';

/** The fast parser agrees with zod on `input`: the same output, key order included, or both refuse. */
function expectAgreement(schema: z.ZodType, input: unknown, label: string): boolean {
  const byZod = schema.safeParse(input);
  const fast = fastParser(schema)(input);
  if (!byZod.success) {
    expect(fast, `${label}: zod refuses it`).toBe(REFUSED);
    return false;
  }
  expect(fast, `${label}: zod accepts it`).not.toBe(REFUSED);
  expect(fast, label).toStrictEqual(byZod.data);
  expect(JSON.stringify(fast), label).toBe(JSON.stringify(byZod.data));
  return true;
}

const SCHEMAS: [string, z.ZodType][] = Object.entries(protocol as Record<string, unknown>).flatMap(([name, value]) =>
  typeof value === 'object' && value !== null && '_zod' in value && 'safeParse' in value ? [[name, value as z.ZodType]] : [],
);

/** Richer messages than the seed's: every optional part of a delegation and an outcome filled in. */
function fullMessages(): Record<string, unknown>[] {
  const [delegation, outcome] = [seedExample('dispatcher-to-fleet.json'), seedExample('fleet-to-dispatcher.json')];
  return [
    {
      ...delegation,
      payload: {
        ...delegation.payload,
        expected_output_schema: { type: 'object', required: ['answer'] },
        error_policy: { on_low_confidence: 'escalate' },
        extra_field: { kept: [1, 'two', null] },
      },
    },
    {
      ...outcome,
      payload: {
        ...outcome.payload,
        status: 'failed',
        error_type: 'specialist_error',
        error_detail: 'it broke',
        recoverable: true,
        resources_used: { tokens: 10, nested: { a: [1, 2] } },
      },
    },
  ];
}

const REPLACEMENTS: readonly unknown[] = [undefined, null, '', 'x', 0, -1, 1.5, 2 ** 60, Number.NaN, Number.POSITIVE_INFINITY, true, [], [1, 'a'], {}, { a: 1 }, 'y'.repeat(300)];

describe('fastParser on the protocol schemas', () => {
  const messages = [...seedExampleFiles().map((file) => seedExample(file)), ...fullMessages()];

  it('agrees with zod on every message of the protocol examples and on every part of one, against every exported schema', () => {
    const parts = messages.flatMap((message) => [message, ...valuePaths(message).map((path) => path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], message))]);
    let accepted = 0;
    for (const [name, schema] of SCHEMAS) {
      for (const [index, part] of parts.entries()) if (expectAgreement(schema, part, `${name} on part ${index}`)) accepted++;
    }
    // Not only refusals: many parts are valid for some schema.
    expect(accepted).toBeGreaterThan(50);
  });

  it('agrees with zod on each example with any one value replaced by another kind, removed, or a field added', () => {
    let compared = 0;
    for (const message of messages) {
      const schema = protocol.MESSAGE_SCHEMAS[protocol.payloadKind(message.payload)!];
      for (const path of valuePaths(message)) {
        for (const replacement of REPLACEMENTS) {
          expectAgreement(schema, replaced(message, path, replacement), `${path.join('.')} = ${String(replacement).slice(0, 20)}`);
          compared++;
        }
        const node = path.reduce<unknown>((value, key) => (value as Record<string | number, unknown>)[key], message);
        if (typeof node === 'object' && node !== null && !Array.isArray(node)) expectAgreement(schema, replaced(message, [...path, 'unexpected'], 1), `${path.join('.')}.unexpected`);
      }
      expectAgreement(schema, { ...message, unexpected: 1 }, 'unexpected');
    }
    expect(compared).toBeGreaterThan(1_000);
  });
});

describe('fastParser, kind by kind', () => {
  const cases: [string, z.ZodType, unknown[]][] = [
    ['numbers', z.number(), [1, -0, Number.NaN, Number.POSITIVE_INFINITY, '1', null]],
    ['ints with bounds', z.int().positive().max(10), [1, 10, 11, 0, 1.5, 2 ** 60]],
    [
      'strings with checks and formats',
      z.object({
        id: z.uuid(),
        at: z.iso.datetime(),
        name: z
          .string()
          .min(2)
          .regex(/^[a-z]+$/),
      }),
      [
        { id: '2b1a4d4e-5b7c-4c0e-9a51-4a1f5e2d3c4b', at: '2026-11-27T10:00:00Z', name: 'ab' },
        { id: 'nope', at: '2026-11-27T10:00:00Z', name: 'ab' },
        { id: '2b1a4d4e-5b7c-4c0e-9a51-4a1f5e2d3c4b', at: 'yesterday', name: 'ab' },
        { id: '2b1a4d4e-5b7c-4c0e-9a51-4a1f5e2d3c4b', at: '2026-11-27T10:00:00Z', name: 'A' },
      ],
    ],
    ['checks that rewrite the value', z.string().trim().toLowerCase(), ['  MiXed ', 3]],
    [
      'bounds, exclusive and inclusive, at and beside their edges',
      z.object({ gt: z.number().gt(0), gte: z.number().gte(0), lt: z.number().lt(1), lte: z.number().lte(1) }),
      [
        { gt: 0.5, gte: 0, lt: 0.5, lte: 1 },
        { gt: 0, gte: 0, lt: 0.5, lte: 1 },
        { gt: 1, gte: -0.1, lt: 0.5, lte: 1 },
        { gt: 1, gte: 0, lt: 1, lte: 1.1 },
      ],
    ],
    [
      'lengths in code points, strings of astral characters included',
      z.object({ min: z.string().min(3), max: z.string().max(2), list: z.array(z.int()).min(2).max(3) }),
      [
        { min: 'abc', max: 'ab', list: [1, 2] },
        { min: '𝄞𝄞', max: '𝄞𝄞', list: [1, 2, 3] },
        { min: '𝄞𝄞𝄞', max: '𝄞𝄞𝄞', list: [1, 2] },
        { min: 'ab', max: 'abc', list: [1] },
        { min: '𝄞a', max: '', list: [1, 2, 3, 4] },
      ],
    ],
    ['safe integers', z.int(), [0, -1, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, -(2 ** 60), 0.5]],
    ['regexes that keep state between tests (a global flag)', z.array(z.string().regex(/^a+/g)), [['aa', 'aa', 'aa'], ['aa', 'b'], []]],
    [
      'dates and times',
      z.object({ at: z.iso.datetime({ offset: true, precision: 3 }), day: z.iso.date(), time: z.iso.time() }),
      [
        { at: '2026-11-27T10:00:00.123+01:00', day: '2026-11-27', time: '10:00:00' },
        { at: '2026-11-27T10:00:00Z', day: '2026-11-27', time: '10:00:00' },
        { at: '2026-11-27T10:00:00.123Z', day: '2026-02-30', time: '25:00' },
      ],
    ],
    [
      'optional, nullable and default fields, absent, undefined or given',
      z.object({ a: z.string().optional(), b: z.string().nullable(), c: z.array(z.string()).default([]), d: z.number().default(2).optional(), e: z.string().nullable().default(null) }),
      [{ b: null }, { a: undefined, b: 'x', c: undefined, d: undefined }, { a: 'x', b: 'y', c: ['z'], d: 5, e: 'e' }, { a: 1, b: null }, {}, { b: undefined }],
    ],
    [
      'fields that take undefined, absent or given',
      z.object({ u: z.unknown(), a: z.any(), n: z.undefined(), v: z.void(), o: z.union([z.string(), z.undefined()]) }),
      [{}, { u: undefined, a: 1, n: undefined, v: undefined, o: undefined }, { o: 'x' }],
    ],
    ['exact optional fields', z.object({ a: z.exactOptional(z.string()) }), [{}, { a: 'x' }, { a: undefined }]],
    ['strict, loose and stripping objects', z.strictObject({ a: z.int() }), [{ a: 1 }, { a: 1, b: 2 }, JSON.parse('{"a":1,"__proto__":{"b":2}}')]],
    ['loose objects', z.looseObject({ a: z.int() }), [{ a: 1, b: { c: 2 } }, JSON.parse('{"a":1,"__proto__":{"b":2}}'), [], null]],
    ['stripping objects', z.object({ a: z.int() }), [{ a: 1, b: 2 }, Object.create({ a: 1 }), new Date(0)]],
    [
      'catch-alls with a type',
      z.object({ a: z.int() }).catchall(z.string()),
      [
        { a: 1, b: 'x' },
        { a: 1, b: 2 },
      ],
    ],
    [
      'records of strings',
      z.record(z.string(), z.unknown()),
      [
        { a: 1 },
        JSON.parse('{"__proto__":1,"a":2}'),
        new Map(),
        Object.create(null),
        [],
        { [Symbol('s')]: 1 },
        Object.defineProperty({ a: 1 }, 'hidden', { value: 2 }),
        Object.defineProperty({ a: 1 }, Symbol('hidden'), { value: 2 }),
        { 2: 'b', 1: 'a', z: 0 },
      ],
    ],
    ['records with checked values', z.record(z.string(), z.int()), [{ a: 1 }, { a: 'x' }]],
    ['records with checked keys, left to zod', z.record(z.string().min(2), z.int()), [{ ab: 1 }, { a: 1 }]],
    ['arrays, holes included', z.array(z.string().nullable()).max(3), [['a', null], new Array<unknown>(2).fill('b', 1), ['a', 'b', 'c', 'd'], 'abc']],
    [
      'enums and literals',
      z.object({ kind: z.enum(['a', 'b']), fixed: z.literal(3) }),
      [
        { kind: 'a', fixed: 3 },
        { kind: 'c', fixed: 3 },
        { kind: 'a', fixed: '3' },
      ],
    ],
    [
      'unions, pipes and coercion, left to zod',
      z.object({ u: z.union([z.string(), z.int()]), p: z.string().transform((text) => text.length), c: z.coerce.number() }),
      [
        { u: 'x', p: 'abc', c: '5' },
        { u: 1.5, p: 'abc', c: '5' },
      ],
    ],
    [
      'refinements with a when',
      z.looseObject({ a: z.int(), b: z.int() }).refine((value) => value.a < value.b, { when: () => true }),
      [
        { a: 1, b: 2 },
        { a: 2, b: 1 },
        { a: 'x', b: 1 },
      ],
    ],
  ];
  for (const [name, schema, inputs] of cases) {
    it(name, () => {
      for (const [index, input] of inputs.entries()) expectAgreement(schema, input, `${name}, input ${index}`);
    });
  }

  it('parses a schema that holds itself', () => {
    const tree = z.object({
      name: z.string(),
      get children() {
        return z.array(tree).optional();
      },
    });
    const deep = {
      name: 'a',
      children: [
        { name: 'b', children: [{ name: 'c' }] },
        { name: 'd', children: [] },
      ],
    };
    for (const input of [deep, { name: 'a', children: [{ name: 1 }] }, { name: 'a', extra: 1 }]) expectAgreement(tree, input, JSON.stringify(input));
    expect(fastParser(tree)(deep)).toEqual(deep);
  });

  it('runs a refinement on the parsed value, not the input', () => {
    const seen: unknown[] = [];
    const schema = z.object({ a: z.string().default('d') }).refine((value) => seen.push(value) > 0);
    expect(fastParser(schema)({})).toEqual({ a: 'd' });
    expect(seen).toEqual([{ a: 'd' }]);
  });
});

describe('fastSafeParse', () => {
  const schema = z.object({ n: z.int().default(1) });

  it("answers a valid input with the output zod gives, and an invalid one with zod's own result", () => {
    expect(fastSafeParse(schema, {})).toEqual({ success: true, data: { n: 1 } });
    const refused = fastSafeParse(schema, { n: 'x' }, { reportInput: true });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues).toEqual(schema.safeParse({ n: 'x' }, { reportInput: true }).error?.issues);
  });

  it('leaves an input that throws as it is read to zod, which throws as it would have', () => {
    const hostile = {
      get n(): number {
        throw new Error('no reading this');
      },
    };
    expect(() => fastSafeParse(schema, hostile)).toThrow('no reading this');
  });
});
