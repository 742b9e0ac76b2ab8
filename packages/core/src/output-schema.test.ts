import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { checkOutput, compileOutputSchema, OUTPUT_SCHEMA_CACHE_SIZE } from './output-schema.js';

const SCHEMA = {
  type: 'object',
  required: ['status', 'artifacts'],
  additionalProperties: false,
  properties: {
    status: { enum: ['success', 'partial'] },
    confidence: { type: 'number', minimum: 0.8 },
    artifacts: { type: 'array', items: { type: 'object', properties: { artifact_type: { const: 'code' } } } },
    metadata: { type: 'object', properties: { 'odd-key': { type: 'string' } } },
  },
};

describe('checkOutput', () => {
  it('passes a value that matches', () => {
    expect(checkOutput(SCHEMA, { status: 'success', confidence: 0.9, artifacts: [{ artifact_type: 'code' }] })).toEqual({ ok: true });
  });

  it('lists every mismatch, each with its path in the protocol’s style', () => {
    const check = checkOutput(SCHEMA, { status: 'done', confidence: 0.5, artifacts: [{ artifact_type: 'code' }, { artifact_type: 'text' }], metadata: { 'odd-key': 1 }, extra: true });
    expect(check).toEqual({
      ok: false,
      kind: 'format_mismatch',
      mismatches: [
        '$: extra is not allowed',
        '$.status: must be one of ["success","partial"]',
        '$.confidence: must be >= 0.8',
        '$.artifacts[1].artifact_type: must be "code"',
        '$.metadata["odd-key"]: must be string',
      ],
    });
    expect(checkOutput(SCHEMA, {})).toMatchObject({ mismatches: ['$: status is required', '$: artifacts is required'] });
  });

  it('says why a schema cannot be used, rather than throwing', () => {
    const check = checkOutput({ type: 'no-such-type' }, {});
    expect(check).toMatchObject({ ok: false, kind: 'invalid_output_schema' });
    expect(check.ok === false && check.kind === 'invalid_output_schema' && check.reason).toMatch(/type/);
  });

  it('reads 2020-12 and draft-07 schemas, and schemas that share an $id', () => {
    expect(checkOutput({ $schema: 'https://json-schema.org/draft/2020-12/schema', prefixItems: [{ type: 'string' }] }, [1])).toMatchObject({ ok: false });
    expect(checkOutput({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'string' }, 'x')).toEqual({ ok: true });
    expect(checkOutput({ $id: 'https://example.com/out', type: 'string' }, 'x')).toEqual({ ok: true });
    expect(checkOutput({ $id: 'https://example.com/out', type: 'number' }, 'x')).toMatchObject({ ok: false, kind: 'format_mismatch' });
  });
});

describe('compileOutputSchema', () => {
  it('compiles a schema once: the same text gets the same validator', () => {
    const first = compileOutputSchema({ type: 'object', required: ['a'] });
    expect(compileOutputSchema({ type: 'object', required: ['a'] })).toBe(first);
  });

  it(`keeps at most ${OUTPUT_SCHEMA_CACHE_SIZE} schemas, dropping the oldest`, () => {
    const oldest = compileOutputSchema({ const: 'oldest' });
    for (let i = 0; i < OUTPUT_SCHEMA_CACHE_SIZE; i++) compileOutputSchema({ const: i });
    expect(compileOutputSchema({ const: 'oldest' })).not.toBe(oldest);
  });
});

/**
 * Runs `checkOutput` of the built package in a child process killed after `deadlineMs`: with a
 * backtracking engine the check below takes hours, and a hung event loop cannot time itself out.
 */
function checkInChild(schema: unknown, value: unknown, deadlineMs: number): { check: unknown; ms: number } {
  const core = new URL('../dist/index.js', import.meta.url).href;
  const script = `
    const { checkOutput } = await import(${JSON.stringify(core)});
    const [schema, value] = JSON.parse(process.argv[1]);
    const started = performance.now();
    const check = checkOutput(schema, value);
    process.stdout.write(JSON.stringify({ check, ms: performance.now() - started }));`;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify([schema, value])], { timeout: deadlineMs, encoding: 'utf8' });
  return JSON.parse(output) as { check: unknown; ms: number };
}

describe('patterns', () => {
  const CATASTROPHIC = '^(a|aa)+$';
  const LONG = `${'a'.repeat(50)}b`;

  it('match in linear time: a catastrophic pattern against a long string answers at once', () => {
    const { check, ms } = checkInChild({ properties: { s: { pattern: CATASTROPHIC } } }, { s: LONG }, 10_000);
    expect(check).toEqual({ ok: false, kind: 'format_mismatch', mismatches: [`$.s: must match pattern "${CATASTROPHIC}"`] });
    expect(ms).toBeLessThan(1_000);
  });

  it('in patternProperties too', () => {
    const { check, ms } = checkInChild({ patternProperties: { [CATASTROPHIC]: { type: 'number' } } }, { [LONG]: 'x', aaaa: 'y' }, 10_000);
    expect(check).toEqual({ ok: false, kind: 'format_mismatch', mismatches: ['$.aaaa: must be number'] });
    expect(ms).toBeLessThan(1_000);
  });

  it('keep the meaning JSON Schema gives them: found anywhere, ECMAScript escapes and named groups', () => {
    const schema = { type: 'string', pattern: '^\\u00e9(?<rest>\\d{2,})\\/$' };
    expect(checkOutput(schema, 'é42/')).toEqual({ ok: true });
    expect(checkOutput(schema, 'é4/')).toMatchObject({ ok: false, kind: 'format_mismatch' });
    expect(checkOutput({ pattern: 'b+' }, 'abbbc')).toEqual({ ok: true });
    expect(checkOutput({ properties: { s: { pattern: 'x' }, t: { pattern: 'y' } } }, { s: 'x', t: 'y' })).toEqual({ ok: true });
  });

  it.each(['(a)\\1', '(?=a)b', '(?!a)b', '(?<=a)b'])('that need backtracking (%s) make the schema unusable, saying why', (pattern) => {
    const check = checkOutput({ properties: { s: { pattern } } }, { s: 'ab' });
    expect(check).toMatchObject({ ok: false, kind: 'invalid_output_schema' });
    expect(check.ok === false && check.kind === 'invalid_output_schema' && check.reason).toContain('without backreferences or lookaround');
  });
});
