// What checking a message costs, side by side in one process: zod's own parse, the fast parser
// (protocol/src/fast-parse.ts), and ajv compiled from the JSON Schema the protocol exports, on
// messages as the runtime sends them (read back from JSON, as a receiver reads them).
//   npm run bench:parse -- [rounds=3] [ms-a-cell=300]
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import {
  delegationMessageSchema,
  fastSafeParse,
  INLINE_CONTENT_LIMIT_BYTES,
  isErrorStatus,
  jsonSchemaOf,
  outcomeMessageSchema,
  TIER_LEVELS,
  utf8ByteLength,
  type OutcomeStatus,
  type TierName,
} from '@tierflow/protocol';
import { buildDelegation } from '@tierflow/runtime/admin';
import { buildOutcome } from '@tierflow/runtime/policy';
import { type OutcomeDraft } from '@tierflow/runtime';
import type { z } from 'zod';
import { median } from './shape.js';

const rounds = Number(process.argv[2] ?? 3);
const cellMs = Number(process.argv[3] ?? 300);
const NOW = Date.parse('2026-11-29T10:00:00Z');
const ROOT = 'r7f3c2a1b9e';
const read = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

const delegation = read(
  buildDelegation(
    'ROUTING_DISPATCHER',
    `${ROOT}.0-0.0-0.0-1`,
    `${ROOT}.0-0.0-0`,
    {
      task_type: 'execute',
      objective: 'Summarise the three incident reports attached and name the service that failed first.',
      constraints: ['cite the report for each claim', 'under 300 words'],
      context_refs: ['beads:task/current-objective', 'beads:incident/2026-11-27'],
      specialist_hint: 'analyst',
      timeout_ms: 30_000,
      task_data: { subtask_index: 2, plan_id: 'p-4411', inputs: { reports: ['a', 'b', 'c'] } },
    },
    NOW,
  ),
);

/** A Fleet outcome answering delegation `n` of the root, as the Dispatcher reads it. */
const fleetOutcome = (n: number, draft: OutcomeDraft, elapsedMs: number): Record<string, unknown> => read(buildOutcome('SPECIALIZED_FLEET', `${ROOT}.0-0.0-0.0-${n}`, draft, elapsedMs, NOW));

const outcome = fleetOutcome(
  1,
  {
    status: 'success',
    summary: 'The database failover started first; the API and the queue followed within a minute.',
    confidence: 0.86,
    result_refs: ['beads:result/r7f3c2a1b9e-1'],
    resources_used: { specialist: 'analyst', usage: { tokens_in: 1840, tokens_out: 412, cost_usd: 0.0031, llm_calls: 1 } },
    evidence_grade: 'IV',
    artifacts: [{ artifact_type: 'analysis', inline_content: 'db-primary failed over at 10:02:11; api 5xx from 10:02:40; queue backlog from 10:03:05.' }],
  },
  1_240,
);

const line = 'The queue consumer timed out reading from the replica while the primary was promoted; retries backed off. ';
const largeOutcome = fleetOutcome(
  2,
  {
    status: 'partial',
    summary: 'Forty findings; two reports could not be read in full.',
    confidence: 0.62,
    error_type: 'specialist_error',
    error_detail: 'two of the reports were truncated',
    recoverable: true,
    resources_used: { specialist: 'analyst', usage: { tokens_in: 52_000, tokens_out: 9_100, cost_usd: 0.081, llm_calls: 6 } },
    artifacts: Array.from({ length: 40 }, (_, index) =>
      index % 2 === 0
        ? { artifact_type: 'analysis', inline_content: line.repeat(6), metadata: { finding: index, source: `report-${index % 3}`, tags: ['timeline', 'replica'] } }
        : { artifact_type: 'code', content_ref: `beads:artifact/${ROOT}-${index}`, metadata: { finding: index, language: 'sql', lines: 120 + index } },
    ),
  },
  48_300,
);

/**
 * ajv over the exported JSON Schema: types, patterns, bounds, enums, strict and loose objects as
 * the zod schemas define them. Numbers must be finite, as zod's are. The date-time pattern is in
 * the schema itself, so the format keyword adds nothing. Defaults are not filled: a message as
 * the runtime sends it carries every field already.
 */
const ajv = new Ajv2020({ strict: false, strictNumbers: true, validateFormats: false, allErrors: false });
const ajvDelegation = ajv.compile(jsonSchemaOf('delegation-message'));
const ajvOutcome = ajv.compile(jsonSchemaOf('outcome-message'));
// The same with defaults filled in, for a copy: what the fast parser returns.
const filling = new Ajv2020({ strict: false, strictNumbers: true, validateFormats: false, allErrors: false, useDefaults: true });
const fillDelegation = filling.compile(jsonSchemaOf('delegation-message'));
const fillOutcome = filling.compile(jsonSchemaOf('outcome-message'));

/**
 * What the JSON Schema leaves out (its $comment says so) and zod's refinements check: tier
 * direction, ids not all digits, error fields only with an error status, exactly one artifact
 * content field and inline content under the limit. Written out here only to price them.
 */
function crossFieldRules(message: Record<string, unknown>, down: boolean): boolean {
  const source = TIER_LEVELS[message.source_tier as TierName];
  const target = TIER_LEVELS[message.target_tier as TierName];
  if (down ? source <= target : source >= target) return false;
  if (/^\d+$/.test(message.id as string)) return false;
  if (typeof message.correlation_id === 'string' && /^\d+$/.test(message.correlation_id)) return false;
  if (down) return true;
  const payload = message.payload as Record<string, unknown>;
  if (!isErrorStatus(payload.status as OutcomeStatus) && (payload.error_type != null || payload.error_detail != null || payload.recoverable != null)) return false;
  for (const artifact of (payload.artifacts ?? []) as Record<string, unknown>[]) {
    if ((artifact.content_ref == null) === (artifact.inline_content == null)) return false;
    if (typeof artifact.inline_content === 'string' && utf8ByteLength(artifact.inline_content) >= INLINE_CONTENT_LIMIT_BYTES) return false;
  }
  return true;
}

/** A copy of a JSON value, the cheapest way found (structuredClone was slower than zod's parse). */
function jsonCopy(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(jsonCopy);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) copy[key] = jsonCopy((value as Record<string, unknown>)[key]);
  return copy;
}

type Check = (input: Record<string, unknown>) => boolean;
interface Case {
  readonly name: string;
  readonly input: Record<string, unknown>;
  readonly schema: z.ZodType;
  readonly ajv: ValidateFunction;
  readonly fill: ValidateFunction;
  readonly down: boolean;
}
const cases: Case[] = [
  { name: 'delegation', input: delegation, schema: delegationMessageSchema, ajv: ajvDelegation, fill: fillDelegation, down: true },
  { name: 'outcome', input: outcome, schema: outcomeMessageSchema, ajv: ajvOutcome, fill: fillOutcome, down: false },
  { name: 'outcome, 40 artifacts', input: largeOutcome, schema: outcomeMessageSchema, ajv: ajvOutcome, fill: fillOutcome, down: false },
];
const VALIDATORS: [string, (c: Case) => Check][] = [
  ['zod safeParse', (c) => (input) => c.schema.safeParse(input).success],
  ['fast parser', (c) => (input) => fastSafeParse(c.schema, input).success],
  ['ajv, schema only', (c) => (input) => c.ajv(input)],
  ['ajv + cross-field rules', (c) => (input) => c.ajv(input) && crossFieldRules(input, c.down)],
  [
    'ajv + rules + a copy',
    (c) => (input) => {
      const copy = jsonCopy(input) as Record<string, unknown>;
      return c.fill(copy) && crossFieldRules(copy, c.down);
    },
  ],
];

for (const c of cases) {
  for (const [name, make] of VALIDATORS) if (!make(c)(c.input)) throw new Error(`${name} refuses the ${c.name}`);
  const broken = { ...c.input, timestamp: 'yesterday' };
  for (const [name, make] of VALIDATORS) if (make(c)(broken)) throw new Error(`${name} accepts a broken ${c.name}`);
}

// Do they decide as zod does? Each message with each value in turn replaced, removed or joined
// by another field; its tiers swapped; an outcome asking a blank question.
const REPLACEMENTS: readonly unknown[] = [undefined, null, '', ' ', 'x', '123', 'beads:x', 0, -1, 1.5, 2 ** 60, true, [], [1, 'a'], {}, { a: 1 }, 'y'.repeat(1100)];
function* variants(message: Record<string, unknown>, at: (string | number)[] = []): Generator<unknown> {
  const node = at.reduce<unknown>((value, key) => (value as Record<string | number, unknown>)[key], message);
  if (typeof node !== 'object' || node === null) return;
  // Of a list, the first two: the forty artifacts are alike.
  const keys = Array.isArray(node) ? node.slice(0, 2).map((_, index) => index) : Object.keys(node);
  for (const key of keys) {
    for (const replacement of REPLACEMENTS) yield replaced(message, [...at, key], replacement);
    yield* variants(message, [...at, key]);
  }
  if (!Array.isArray(node)) yield replaced(message, [...at, 'unexpected'], 1);
}
function replaced(message: Record<string, unknown>, path: (string | number)[], replacement: unknown): Record<string, unknown> {
  const copy = jsonCopy(message) as Record<string, unknown>;
  const parent = path.slice(0, -1).reduce<Record<string | number, unknown>>((value, key) => value[key] as Record<string | number, unknown>, copy);
  if (replacement === undefined && !Array.isArray(parent)) delete parent[path.at(-1)!];
  else parent[path.at(-1)!] = replacement;
  return copy;
}
const asking = (question: string): Record<string, unknown> => ({
  ...outcome,
  payload: { ...(outcome.payload as object), status: 'needs_clarification', questions: [{ id: outcome.id, question, tier: 'SPECIALIZED_FLEET' }] },
});
const disagreements = VALIDATORS.map((): Record<string, number> => ({}));
let compared = 0;
for (const c of cases) {
  const swapped = { ...c.input, source_tier: c.input.target_tier, target_tier: c.input.source_tier };
  const extra = c.name === 'outcome' ? [asking('  '), asking(' which replica? ')] : [];
  for (const input of [c.input, swapped, ...extra, ...variants(c.input)]) {
    compared++;
    const byZod = c.schema.safeParse(input);
    for (const [v, [, make]] of VALIDATORS.entries()) {
      if (make(c)(input as Record<string, unknown>) === byZod.success) continue;
      const rule = byZod.success
        ? 'refused, zod accepts'
        : byZod.error.issues.map((issue) => (issue.code === 'custom' ? `${String((issue.params as { rule?: string } | undefined)?.rule ?? 'refine')}` : issue.code)).join('+');
      disagreements[v]![rule] = (disagreements[v]![rule] ?? 0) + 1;
    }
  }
}
console.log(`decisions against zod's on ${compared} variants of the three messages:`);
for (const [v, [label]] of VALIDATORS.entries()) {
  const tally = Object.entries(disagreements[v]!).sort((a, b) => b[1] - a[1]);
  const total = tally.reduce((sum, [, count]) => sum + count, 0);
  console.log(`  ${label}: ${total} differ${tally.length > 0 ? ` (zod refuses: ${tally.map(([rule, count]) => `${rule} ${count}`).join(', ')})` : ''}`);
}

/** Calls a second over `ms`, after a short warm-up; the input rotates over `inputs`. */
function opsPerSecond(check: Check, inputs: readonly Record<string, unknown>[], ms: number): number {
  let sink = 0;
  for (let i = 0; i < 2_000; i++) sink += check(inputs[i % inputs.length]!) ? 1 : 0;
  let calls = 0;
  const started = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    for (let i = 0; i < 500; i++) sink += check(inputs[i % inputs.length]!) ? 1 : 0;
    calls += 500;
    elapsed = performance.now() - started;
  }
  if (sink === 0) throw new Error('nothing passed');
  return (1000 * calls) / elapsed;
}

// Every validator sees every kind of message before any is timed, as in a worker, where zod's
// shared code meets many shapes.
for (const c of cases) for (const [, make] of VALIDATORS) opsPerSecond(make(c), [c.input], 50);

const rows = [...cases.map((c) => ({ name: c.name, checks: VALIDATORS.map(([, make]) => make(c)), inputs: [c.input] }))];
const mixed = VALIDATORS.map(([, make]) => {
  const checks = cases.map((c) => make(c));
  return (input: Record<string, unknown>): boolean => checks[cases.findIndex((c) => c.input === input)]!(input);
});
rows.push({ name: 'the three in turn', checks: mixed, inputs: cases.map((c) => c.input) });

const figures = rows.map(() => VALIDATORS.map((): number[] => []));
for (let round = 0; round < rounds; round++) {
  for (const [row, { checks, inputs }] of rows.entries()) {
    // The order turns each round, so that no validator always runs first.
    for (let k = 0; k < checks.length; k++) {
      const v = (k + round) % checks.length;
      figures[row]![v]!.push(opsPerSecond(checks[v]!, inputs, cellMs));
    }
  }
}

console.log(`node ${process.version}, ${rounds} rounds of ${cellMs} ms a cell; medians in calls/s, then each over the fast parser`);
const fast = 1;
for (const [row, { name }] of rows.entries()) {
  const medians = figures[row]!.map((values) => median(values));
  const cells = VALIDATORS.map(([label], v) => `${label} ${Math.round(medians[v]!).toLocaleString('en')} (${(medians[v]! / medians[fast]!).toFixed(2)})`);
  console.log(`${name}: ${cells.join(', ')}`);
  const perRound = VALIDATORS.map(([label], v) => `${label} ${figures[row]![v]!.map((value, r) => (value / figures[row]![fast]![r]!).toFixed(2)).join('/')}`);
  console.log(`  ratios round by round: ${perRound.join(', ')}`);
}
