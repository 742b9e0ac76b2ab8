import { isTierflowError, TIER_NAMES, TIER_SLUGS, TierflowError, type TierName } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { BEADS_NAMESPACES, type BeadsNamespace } from './beads-key.js';
import { BeadsPermissionError, canWrite, checkWrite, seenMessageKey, WRITE_PERMISSIONS } from './permissions.js';

// The table of docs/protocol.md#beads-permissions, transcribed rather than derived from
// WRITE_PERMISSIONS.
const SEED_TABLE: Record<BeadsNamespace, Record<TierName, 'R' | 'RW'>> = {
  task: { PROGRESS_MONITOR: 'R', ABSTRACT_ARCHITECT: 'RW', ROUTING_DISPATCHER: 'R', SPECIALIZED_FLEET: 'R' },
  routing: { PROGRESS_MONITOR: 'R', ABSTRACT_ARCHITECT: 'R', ROUTING_DISPATCHER: 'RW', SPECIALIZED_FLEET: 'R' },
  execution: { PROGRESS_MONITOR: 'R', ABSTRACT_ARCHITECT: 'R', ROUTING_DISPATCHER: 'R', SPECIALIZED_FLEET: 'RW' },
  system: { PROGRESS_MONITOR: 'RW', ABSTRACT_ARCHITECT: 'R', ROUTING_DISPATCHER: 'R', SPECIALIZED_FLEET: 'R' },
  history: { PROGRESS_MONITOR: 'RW', ABSTRACT_ARCHITECT: 'R', ROUTING_DISPATCHER: 'R', SPECIALIZED_FLEET: 'R' },
};

const CASES = TIER_NAMES.flatMap((tier) => BEADS_NAMESPACES.map((namespace) => [tier, namespace, SEED_TABLE[namespace][tier] === 'RW'] as const));

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('write permissions, every tier × namespace', () => {
  it.each(CASES)('%s writes %s/*: %s', (tier, namespace, allowed) => {
    expect(canWrite(tier, `${namespace}/some/key`)).toBe(allowed);
    expect(canWrite(tier, `beads:${namespace}/some/key`)).toBe(allowed);
    expect(WRITE_PERMISSIONS[tier].includes(namespace)).toBe(allowed);
    if (allowed) expect(checkWrite(tier, `beads:${namespace}/k`)).toEqual({ namespace, path: 'k', key: `${namespace}/k` });
    else expect(() => checkWrite(tier, `${namespace}/k`)).toThrow(BeadsPermissionError);
  });
});

describe('own de-duplication records', () => {
  it.each(TIER_NAMES)('%s writes system/seen-messages/<its slug> and below, nothing else in system/*', (tier) => {
    const slug = TIER_SLUGS[tier];
    expect(canWrite(tier, `system/seen-messages/${slug}/m1`)).toBe(true);
    expect(canWrite(tier, `beads:system/seen-messages/${slug}/m1`)).toBe(true);
    expect(canWrite(tier, `system/seen-messages/${slug}`)).toBe(true);
    expect(canWrite(tier, seenMessageKey(tier, 'm1'))).toBe(true);
    const isMonitor = tier === 'PROGRESS_MONITOR';
    for (const other of TIER_NAMES.filter((t) => t !== tier)) {
      expect(canWrite(tier, `system/seen-messages/${TIER_SLUGS[other]}/m1`)).toBe(isMonitor);
    }
    expect(canWrite(tier, `system/seen-messages/${slug}x/m1`)).toBe(isMonitor);
    expect(canWrite(tier, 'system/seen-messages')).toBe(isMonitor);
    expect(canWrite(tier, 'system/other')).toBe(isMonitor);
  });

  it('the Fleet may write its own, not the Monitor’s, not system/other', () => {
    expect(canWrite('SPECIALIZED_FLEET', 'system/seen-messages/fleet/m1')).toBe(true);
    expect(canWrite('SPECIALIZED_FLEET', 'system/seen-messages/monitor/m1')).toBe(false);
    expect(canWrite('SPECIALIZED_FLEET', 'system/other')).toBe(false);
  });

  it('seenMessageKey builds the key and refuses an id that would break it', () => {
    expect(seenMessageKey('ROUTING_DISPATCHER', 'abc')).toBe('system/seen-messages/dispatcher/abc');
    expect(() => seenMessageKey('ROUTING_DISPATCHER', '../../task/x')).toThrow(/".." segments/);
  });
});

describe('BeadsPermissionError', () => {
  it('explains who writes what', () => {
    const error = thrownBy(() => checkWrite('ROUTING_DISPATCHER', 'task/x'));
    expect(error).toBeInstanceOf(BeadsPermissionError);
    expect(error).toBeInstanceOf(TierflowError);
    expect(isTierflowError(error)).toBe(true);
    expect(error).toMatchObject({
      name: 'BeadsPermissionError',
      code: 'beads_write_denied',
      retryable: false,
      tier: 'ROUTING_DISPATCHER',
      key: 'task/x',
      message: 'ROUTING_DISPATCHER may not write beads:task/x: task/* is written by ABSTRACT_ARCHITECT only (ROUTING_DISPATCHER writes routing/*)',
    });
  });

  it.each<[TierName, string, string]>([
    ['ABSTRACT_ARCHITECT', 'beads:history/routines/r', 'ABSTRACT_ARCHITECT may not write beads:history/routines/r: history/* is written by PROGRESS_MONITOR only (ABSTRACT_ARCHITECT writes task/*)'],
    [
      'PROGRESS_MONITOR',
      'execution/outputs/1',
      'PROGRESS_MONITOR may not write beads:execution/outputs/1: execution/* is written by SPECIALIZED_FLEET only (PROGRESS_MONITOR writes system/* and history/*)',
    ],
    [
      'SPECIALIZED_FLEET',
      'system/seen-messages/monitor/m1',
      "SPECIALIZED_FLEET may not write beads:system/seen-messages/monitor/m1: system/* is written by PROGRESS_MONITOR only, apart from each tier's own system/seen-messages/<slug>/* (SPECIALIZED_FLEET writes execution/* and system/seen-messages/fleet/*)",
    ],
  ])('%s → %s', (tier, key, message) => {
    expect(() => checkWrite(tier, key)).toThrow(message);
  });

  it('is not thrown for a malformed key, which is a different mistake', () => {
    const error = thrownBy(() => checkWrite('SPECIALIZED_FLEET', 'task/../x'));
    expect(error).not.toBeInstanceOf(BeadsPermissionError);
    expect(error).toMatchObject({ code: 'invalid_beads_key' });
    expect(() => canWrite('SPECIALIZED_FLEET', 'nope/x')).toThrow(/unknown namespace/);
  });
});
