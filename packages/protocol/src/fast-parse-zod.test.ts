import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { $ZodType } from 'zod/v4/core';
import { fastParser, isLeftToZod, REFUSED } from './fast-parse.js';
import * as protocol from './index.js';
import { replaced, seedExample, seedExampleFiles, valuePaths } from './test-fixtures.js';

// The fast parser reads zod's internals (`zod/v4/core`), which no zod release promises to keep.
// These tests are the tripwire for a zod upgrade: the fast parser must still answer as the zod
// installed does, on a wide corpus of valid and broken messages, and still take the fast path on
// the wire schemas instead of quietly handing them to zod.

const ROOT = 'r7f3c2a1b9e';

/** Messages with every optional part filled in, beyond the protocol's examples. */
const RICH: Record<string, unknown>[] = [
  {
    version: '1.0.0',
    id: `${ROOT}.0-0.0-0.0-1`,
    timestamp: '2026-11-29T10:00:00.123+01:00',
    source_tier: 'ROUTING_DISPATCHER',
    target_tier: 'SPECIALIZED_FLEET',
    correlation_id: `${ROOT}.0-0.0-0`,
    payload: {
      task_type: 'execute',
      objective: 'Name the service that failed first.',
      constraints: ['cite the report'],
      context_refs: ['beads:task/current-objective'],
      priority: 0,
      timeout_ms: 30_000,
      deadline_hint: 'before noon',
      specialist_hint: 'analyst',
      task_data: { upstream: [{ subtask_index: 1, summary: null }], plan: { id: 'p-1' } },
      expected_output_schema: { type: 'object', required: ['answer'] },
      target_agent: { agent_id: 'analyst', agent_version: '1.2.0', prompt_hash: 'ab'.repeat(32) },
      error_policy: { on_low_confidence: 'retry', on_format_mismatch: 'adapt', on_timeout: 'partial_result' },
    },
    signature: { key_id: 'dispatcher-1', alg: 'ed25519', value: 'A'.repeat(85) + 'g' },
  },
  {
    version: '1.3.0',
    id: `${ROOT}.0-0.0-0.0-1.out`,
    timestamp: '2026-11-29T10:00:01Z',
    source_tier: 'SPECIALIZED_FLEET',
    target_tier: 'ROUTING_DISPATCHER',
    correlation_id: `${ROOT}.0-0.0-0.0-1`,
    payload: {
      status: 'needs_clarification',
      summary: 'Which replica is meant?',
      result_refs: ['beads:result/1'],
      confidence: 0.5,
      execution_time_ms: 0,
      resources_used: { usage: { tokens_in: 10, tokens_out: 2, cost_usd: 0, llm_calls: 1 } },
      surprise_flag: true,
      surprise_reason: 'two replicas',
      error_type: 'needs_clarification',
      error_detail: null,
      recoverable: true,
      artifacts: [
        { artifact_type: 'analysis', content_ref: null, inline_content: 'db-primary failed over at 10:02:11 𝄞', metadata: { finding: 1 } },
        { artifact_type: 'code', content_ref: 'beads:artifact/2', inline_content: null, metadata: {} },
      ],
      cascade_check: { action: 'flag_uncertainty', confidence: 0.5, threshold: 0.6, upstream_id: `${ROOT}.0-0.out`, checked_by: 'ROUTING_DISPATCHER' },
      evidence_grade: 'HEUR',
      questions: [{ id: `${ROOT}.0-0.0-0.0-1.out`, question: '  which replica?  ', tier: 'SPECIALIZED_FLEET' }],
      added_by_a_newer_minor: { kept: true },
    },
  },
  {
    version: '1.0.0',
    id: `${ROOT}.cancel`,
    timestamp: '2026-11-29T10:00:02Z',
    source_tier: 'PROGRESS_MONITOR',
    target_tier: 'PROGRESS_MONITOR',
    correlation_id: null,
    payload: { target_message_id: ROOT, reason: 'operator asked', cascade: false, error_type: 'budget_exceeded' },
  },
];

const PAYLOAD_SCHEMAS: Record<protocol.MessageKind, z.ZodType> = {
  delegation: protocol.delegationPayloadSchema,
  outcome: protocol.outcomePayloadSchema,
  cancellation: protocol.cancellationPayloadSchema,
};

const CORPUS: Record<string, unknown>[] = [...seedExampleFiles().map((file) => seedExample(file)), ...RICH];

/** Every value the corpus holds: each is valid somewhere, so put elsewhere it tests the rules between fields. */
const CORPUS_VALUES = CORPUS.flatMap((message) => valuePaths(message).map((path) => path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], message)));

/** Values at the edges of what the schemas draw a line through. */
const EDGES: readonly unknown[] = [
  ...[undefined, null, true, 0, -0, -1, 0.5, 1, 1.0000001, 2 ** 53, Number.MAX_SAFE_INTEGER, Number.NaN, Number.POSITIVE_INFINITY, -Infinity],
  ...['', ' ', '\u00a0x\ufeff', '  x  ', '123', '1.2.3', '1.2', '01.2.3', 'a', 'a'.repeat(64), 'a'.repeat(65), 'a'.repeat(129), '𝄞'.repeat(2), 'y'.repeat(1024), 'é'.repeat(512), 'é'.repeat(511)],
  ...['beads:x', 'beads: x', 'beads:', '2026-02-29T00:00:00Z', '2028-02-29T00:00:00Z', '2026-11-29T10:00:00', '2026-11-29T25:00:00Z', 'ed25519', 'A'.repeat(86)],
  ...[[], [null], [1, 'a'], {}, { a: 1 }, JSON.parse('{"__proto__":{"a":1},"b":2}') as unknown, { __proto__: null }, new Date(0), new Map()],
];

const valueArb = fc.oneof(fc.constantFrom(...EDGES), fc.constantFrom(...CORPUS_VALUES), fc.jsonValue({ maxDepth: 2 }));

/** One change to a message: a value replaced (removed, for undefined), or a field added to an object. */
const changeArb = fc.record({ at: fc.nat(), value: valueArb, add: fc.boolean() });

function changed(message: unknown, change: { at: number; value: unknown; add: boolean }): unknown {
  const paths = valuePaths(message);
  if (paths.length === 0) return message;
  const path = paths[change.at % paths.length]!;
  const node = path.reduce<unknown>((value, key) => (value as Record<string | number, unknown>)[key], message);
  const addable = change.add && typeof node === 'object' && node !== null && !Array.isArray(node);
  return addable ? replaced(message, [...path, 'unexpected'], change.value) : replaced(message, path, change.value);
}

/** How the fast parser's answer differs from zod's on `input`, or null when it does not. */
function disagreement(schema: z.ZodType, input: unknown): string | null {
  const byZod = schema.safeParse(input);
  const fast = fastParser(schema)(input);
  if (!byZod.success) return fast === REFUSED ? null : `zod refuses (${byZod.error.issues[0]?.message}), the fast parser accepts`;
  if (fast === REFUSED) return 'zod accepts, the fast parser refuses';
  // The same output, key order included (the text of a stored message).
  if (!isDeepStrictEqual(fast, byZod.data) || JSON.stringify(fast) !== JSON.stringify(byZod.data)) return 'both accept, with different outputs';
  return null;
}

describe('the fast parser against the zod installed', () => {
  it('answers as zod does on each message with any one value replaced by an edge value, removed, or a field added', () => {
    let compared = 0;
    for (const message of CORPUS) {
      const kind = protocol.payloadKind(message.payload)!;
      const [schema, payloadSchema] = [protocol.MESSAGE_SCHEMAS[kind], PAYLOAD_SCHEMAS[kind]];
      for (const path of valuePaths(message)) {
        for (const [index, value] of EDGES.entries()) {
          const input = replaced(message, path, value) as { payload: unknown };
          expect(disagreement(schema, input), `${path.join('.')} = edge ${index}`).toBeNull();
          expect(disagreement(payloadSchema, input.payload), `payload, ${path.join('.')} = edge ${index}`).toBeNull();
          compared++;
        }
        expect(disagreement(schema, changed(message, { at: 0, value: 1, add: true }))).toBeNull();
      }
    }
    expect(compared).toBeGreaterThan(10_000);
  });

  it('answers as zod does on messages with up to three values changed, against every message schema', () => {
    let accepted = 0;
    fc.assert(
      fc.property(fc.constantFrom(...CORPUS), fc.array(changeArb, { minLength: 1, maxLength: 3 }), (message, changes) => {
        const input = changes.reduce<unknown>(changed, message);
        for (const schema of Object.values(protocol.MESSAGE_SCHEMAS)) {
          expect(disagreement(schema, input)).toBeNull();
          if (schema.safeParse(input).success) accepted++;
        }
        const payload = (input as { payload?: unknown } | null)?.payload;
        for (const schema of Object.values(PAYLOAD_SCHEMAS)) expect(disagreement(schema, payload)).toBeNull();
      }),
      { numRuns: 1_000 },
    );
    // Valid messages too, not only refusals: a change often keeps a message valid.
    expect(accepted).toBeGreaterThan(100);
  });

  it('accepts every message of the corpus as zod does', () => {
    for (const message of CORPUS) {
      const schema = protocol.MESSAGE_SCHEMAS[protocol.payloadKind(message.payload)!];
      expect(schema.safeParse(message).success).toBe(true);
      expect(disagreement(schema, message)).toBeNull();
    }
  });
});

/** Every schema node under `schema`, found by any key of its definition (checks aside). */
function nodesOf(schema: $ZodType, found = new Set<$ZodType>()): Set<$ZodType> {
  if (found.has(schema)) return found;
  found.add(schema);
  const isNode = (value: unknown): value is $ZodType => typeof value === 'object' && value !== null && '_zod' in value;
  for (const [key, value] of Object.entries(schema._zod.def as object) as [string, unknown][]) {
    if (key === 'checks') continue;
    const children: unknown[] = Array.isArray(value) ? value : typeof value === 'object' && value !== null && !isNode(value) ? Object.values(value) : [value];
    for (const child of children) if (isNode(child)) nodesOf(child, found);
  }
  return found;
}

describe('the fast path on the wire schemas', () => {
  const exported = Object.entries(protocol as Record<string, unknown>).filter((entry): entry is [string, $ZodType] => typeof entry[1] === 'object' && entry[1] !== null && '_zod' in entry[1]);

  it('leaves no node of an exported schema to zod but the one union, which validate() never parses', () => {
    for (const [, schema] of exported) fastParser(schema);
    const left = exported.flatMap(([name, schema]) => [...nodesOf(schema)].filter((node) => isLeftToZod(node)).map((node) => `${name}: ${node._zod.def.type}`));
    expect(left).toEqual(['messageSchema: union']);
  });

  it('walks the whole of each message schema', () => {
    // A renamed definition key would hide nodes from the walk above, and its check with them.
    expect(nodesOf(protocol.delegationMessageSchema).size).toBeGreaterThan(40);
    expect(nodesOf(protocol.outcomeMessageSchema).size).toBeGreaterThan(50);
  });
});
