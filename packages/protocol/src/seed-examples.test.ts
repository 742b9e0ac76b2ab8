import { describe, expect, it } from 'vitest';
import { messageKind } from './message.js';
import { outcomePayloadSchema } from './payloads/outcome.js';
import { SEED_FRAGMENT_DIR, seedExampleFiles, seedExampleText } from './test-fixtures.js';
import { validate, validateWith } from './validate.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

describe('the protocol’s complete message examples', () => {
  it('are all here', () => {
    expect(seedExampleFiles().sort()).toEqual(['aggregated-outcome.json', 'architect-cancels-dispatcher.json', 'architect-to-dispatcher.json', 'dispatcher-to-fleet.json', 'fleet-to-dispatcher.json']);
  });

  it.each(seedExampleFiles())('%s validates exactly as printed', (file) => {
    const result = validate(seedExampleText(file));
    expect(result.ok ? [] : result.errors).toEqual([]);
  });

  it.each([
    ['architect-to-dispatcher.json', 'delegation'],
    ['dispatcher-to-fleet.json', 'delegation'],
    ['architect-cancels-dispatcher.json', 'cancellation'],
    ['fleet-to-dispatcher.json', 'outcome'],
    ['aggregated-outcome.json', 'outcome'],
  ] as const)('%s is read as a %s', (file, kind) => {
    const result = validate(seedExampleText(file));
    if (!result.ok) throw new Error('expected a valid message');
    expect(messageKind(result.value)).toBe(kind);
  });

  it.each(seedExampleFiles())('%s survives a parse → serialise round trip unchanged', (file) => {
    const original: unknown = JSON.parse(seedExampleText(file));
    const result = validate(original);
    if (!result.ok) throw new Error('expected a valid message');
    expect(JSON.parse(JSON.stringify(result.value))).toEqual(original);
  });

  it('the clarification fragment is only a partial payload: it lacks confidence and execution_time_ms', () => {
    const fragment: unknown = JSON.parse(readFileSync(join(SEED_FRAGMENT_DIR, 'clarification-payload.json'), 'utf8'));
    const result = validateWith(outcomePayloadSchema, fragment);
    expect(result.ok ? [] : result.errors.map((error) => error.path)).toEqual(['$.confidence', '$.execution_time_ms']);
  });
});
