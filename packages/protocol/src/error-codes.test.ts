import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_KINDS, isErrorKind, isThrownCode, kindOfCode, THROWN_ERRORS } from './error-codes.js';
import { ERROR_TYPES } from './error-types.js';

describe('THROWN_ERRORS', () => {
  it('gives every code one of the kinds and a meaning', () => {
    for (const [code, entry] of Object.entries(THROWN_ERRORS)) {
      expect(code).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(ERROR_KINDS, code).toContain(entry.kind);
      expect(entry.meaning.length, code).toBeGreaterThan(0);
    }
  });

  it('spells the codes that are also outcome error types as ERROR_TYPES does', () => {
    const outcomeCodes: readonly string[] = Object.values(ERROR_TYPES);
    const shared = Object.keys(THROWN_ERRORS).filter((code) => outcomeCodes.includes(code));
    expect(shared.sort()).toEqual(
      [
        'attestation_invalid',
        'attestation_missing',
        'boundary_violation',
        'budget_exceeded',
        'composition_invalid',
        'context_too_large',
        'corrupt_record',
        'handoff_refused',
        'input_too_large',
        'invalid_output_schema',
        'model_unreachable',
        'replay_miss',
        'specialist_unavailable',
        'throttled',
      ].sort(),
    );
  });
});

describe('docs/protocol.md#thrown-errors', () => {
  it('lists every code with its kind, in the order of the table', () => {
    const doc = readFileSync(new URL('../../../docs/protocol.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## Thrown errors'), doc.indexOf('## Defaults and unknown fields'));
    const rows = [...section.matchAll(/^\| `([a-z0-9_]+)` \| `([a-z_]+)` \|/gm)].map(([, code, kind]) => [code, kind]);
    expect(rows).toEqual(Object.entries(THROWN_ERRORS).map(([code, entry]) => [code, entry.kind]));
  });
});

describe('kindOfCode', () => {
  it.each([
    ['invalid_config', 'invalid_input'],
    ['root_not_found', 'not_found'],
    ['not_waiting', 'conflict'],
    ['redis_unreachable', 'unavailable'],
    ['transient', 'unavailable'],
    ['boundary_violation', 'forbidden'],
    ['permanent', 'internal'],
  ] as const)('%s is %s', (code, kind) => {
    expect(isThrownCode(code)).toBe(true);
    expect(kindOfCode(code)).toBe(kind);
  });

  it("gives a code of someone else's the fallback, internal unless told", () => {
    expect(isThrownCode('repo_not_found')).toBe(false);
    expect(kindOfCode('repo_not_found')).toBe('internal');
    expect(kindOfCode('repo_not_found', 'not_found')).toBe('not_found');
    // A code of Tierflow's keeps its own kind whatever the fallback.
    expect(kindOfCode('invalid_config', 'internal')).toBe('invalid_input');
    expect(isThrownCode('toString')).toBe(false);
  });
});

describe('isErrorKind', () => {
  it.each([...ERROR_KINDS])('%s is a kind', (kind) => expect(isErrorKind(kind)).toBe(true));
  it.each(['', 'invalid', 'Internal', 3, null])('%j is not', (value) => expect(isErrorKind(value)).toBe(false));
});
