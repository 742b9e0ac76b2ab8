import { TIER_NAMES, type TierName } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { checkDelegation } from './delegation-guard.js';

describe('checkDelegation', () => {
  it.each<[TierName, TierName, string | null]>([
    ['PROGRESS_MONITOR', 'PROGRESS_MONITOR', 'a tier cannot delegate to itself (PROGRESS_MONITOR 4 → PROGRESS_MONITOR 4)'],
    ['PROGRESS_MONITOR', 'ABSTRACT_ARCHITECT', null],
    ['PROGRESS_MONITOR', 'ROUTING_DISPATCHER', 'a delegation may not skip a tier: PROGRESS_MONITOR delegates only to ABSTRACT_ARCHITECT (PROGRESS_MONITOR 4 → ROUTING_DISPATCHER 2)'],
    ['PROGRESS_MONITOR', 'SPECIALIZED_FLEET', 'a delegation may not skip a tier: PROGRESS_MONITOR delegates only to ABSTRACT_ARCHITECT (PROGRESS_MONITOR 4 → SPECIALIZED_FLEET 1)'],
    ['ABSTRACT_ARCHITECT', 'PROGRESS_MONITOR', 'a delegation must go down, not up (ABSTRACT_ARCHITECT 3 → PROGRESS_MONITOR 4)'],
    ['ABSTRACT_ARCHITECT', 'ABSTRACT_ARCHITECT', 'a tier cannot delegate to itself (ABSTRACT_ARCHITECT 3 → ABSTRACT_ARCHITECT 3)'],
    ['ABSTRACT_ARCHITECT', 'ROUTING_DISPATCHER', null],
    ['ABSTRACT_ARCHITECT', 'SPECIALIZED_FLEET', 'a delegation may not skip a tier: ABSTRACT_ARCHITECT delegates only to ROUTING_DISPATCHER (ABSTRACT_ARCHITECT 3 → SPECIALIZED_FLEET 1)'],
    ['ROUTING_DISPATCHER', 'PROGRESS_MONITOR', 'a delegation must go down, not up (ROUTING_DISPATCHER 2 → PROGRESS_MONITOR 4)'],
    ['ROUTING_DISPATCHER', 'ABSTRACT_ARCHITECT', 'a delegation must go down, not up (ROUTING_DISPATCHER 2 → ABSTRACT_ARCHITECT 3)'],
    ['ROUTING_DISPATCHER', 'ROUTING_DISPATCHER', 'a tier cannot delegate to itself (ROUTING_DISPATCHER 2 → ROUTING_DISPATCHER 2)'],
    ['ROUTING_DISPATCHER', 'SPECIALIZED_FLEET', null],
    ['SPECIALIZED_FLEET', 'PROGRESS_MONITOR', 'a Fleet specialist cannot delegate (SPECIALIZED_FLEET → PROGRESS_MONITOR)'],
    ['SPECIALIZED_FLEET', 'ABSTRACT_ARCHITECT', 'a Fleet specialist cannot delegate (SPECIALIZED_FLEET → ABSTRACT_ARCHITECT)'],
    ['SPECIALIZED_FLEET', 'ROUTING_DISPATCHER', 'a Fleet specialist cannot delegate (SPECIALIZED_FLEET → ROUTING_DISPATCHER)'],
    ['SPECIALIZED_FLEET', 'SPECIALIZED_FLEET', 'a Fleet specialist cannot delegate (SPECIALIZED_FLEET → SPECIALIZED_FLEET)'],
  ])('%s → %s', (from, to, reason) => {
    expect(checkDelegation(from, to)).toEqual(reason === null ? { ok: true } : { ok: false, reason });
  });

  it('allows exactly three of the sixteen pairs: each tier to the one directly below', () => {
    const allowed = TIER_NAMES.flatMap((from) => TIER_NAMES.filter((to) => checkDelegation(from, to).ok).map((to) => `${from}>${to}`));
    expect(allowed).toEqual(['PROGRESS_MONITOR>ABSTRACT_ARCHITECT', 'ABSTRACT_ARCHITECT>ROUTING_DISPATCHER', 'ROUTING_DISPATCHER>SPECIALIZED_FLEET']);
  });
});
