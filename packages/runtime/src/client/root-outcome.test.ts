import { describe, expect, it } from 'vitest';
import { buildOutcome, buildRootOutcome } from '../messages/messages.js';
import { signRecord } from '../security/signing.js';
import type { Signer } from '../security/signing-keys.js';
import { memoryKeySet } from '../testing/keys.js';
import { readRootOutcome } from './root-outcome.js';

const keys = memoryKeySet();
const monitor = keys.signer('monitor');
const DONE = { status: 'success', summary: 'done', confidence: 0.9 } as const;

/** The outcome of run `rootId` as stored, signed by `signer`. */
function stored(rootId: string, answering = `${rootId}.0-0`, signer: Signer | null = monitor): string {
  return JSON.stringify(signRecord(buildRootOutcome(rootId, answering, DONE, 5, Date.now()), signer));
}

describe("a client reading a root's outcome", () => {
  it("takes the run's own outcome, signed by the Monitor, as text or as parsed", () => {
    expect(readRootOutcome(stored('run-b'), 'run-b', keys.signing)).toMatchObject({ outcome: { id: 'run-b.out', correlation_id: 'run-b.0-0' } });
    expect(readRootOutcome(JSON.parse(stored('run-b')), 'run-b', keys.signing)).toMatchObject({ outcome: { id: 'run-b.out' } });
    // A root that delegated nothing answers itself.
    expect(readRootOutcome(stored('run-b', 'run-b'), 'run-b', keys.signing)).toMatchObject({ outcome: { correlation_id: 'run-b' } });
    expect(readRootOutcome(stored('run-b', 'run-b.0-0', null), 'run-b', null)).toMatchObject({ outcome: { id: 'run-b.out' } });
  });

  it.each<[string, () => string, RegExp]>([
    ["another run's genuine, signed outcome", () => stored('run-a'), /outcome run-a\.out, answering run-a\.0-0, not the outcome of run run-b/],
    ['its own id over another run’s answer', () => stored('run-b', 'run-a.0-0'), /answering run-a\.0-0/],
    ['an inner outcome of the run', () => JSON.stringify(signRecord(buildOutcome('ABSTRACT_ARCHITECT', 'run-b.0-0', DONE, 5, Date.now()), monitor)), /outcome run-b\.0-0\.out/],
    ['one answering nothing', () => JSON.stringify({ ...JSON.parse(stored('run-b')), correlation_id: null }), /answering nothing/],
    ['an unsigned one', () => stored('run-b', 'run-b.0-0', null), /unsigned/],
    ["the Architect's signature", () => stored('run-b', 'run-b.0-0', keys.signer('architect')), /only monitor may sign this/],
    ['an altered one', () => stored('run-b').replace('"done"', '"made up"'), /does not match/],
    ['text that is not an outcome', () => '{"forged":true}', /not a valid outcome/],
    ['text that is not JSON', () => '{not json', /not a valid outcome/],
  ])('refuses %s', (_name, value, reason) => {
    const reading = readRootOutcome(value(), 'run-b', keys.signing);
    expect(reading).toEqual({ refused: expect.stringMatching(reason) as string });
  });

  it("refuses another run's outcome in a deployment that does not sign, too", () => {
    expect(readRootOutcome(stored('run-a', 'run-a.0-0', null), 'run-b', null)).toEqual({ refused: expect.stringContaining('not the outcome of run run-b') as string });
  });
});
