import type { AgentIdentity } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { pinnedTo, tierPinOf, tierPinRefusal } from './tier-pins.js';

const identity = (agent_id: string, prompt = 'a'): AgentIdentity => ({ agent_id, agent_version: '1.2.0', prompt_hash: prompt.repeat(64) });
const locked = new Map([
  ['architect', identity('architect')],
  ['dispatcher', identity('dispatcher')],
  ['fleet', identity('fleet')],
]);

describe('tierPinOf', () => {
  it.each([
    ['PROGRESS_MONITOR', identity('architect')],
    ['ABSTRACT_ARCHITECT', identity('dispatcher')],
    // The Dispatcher pins each Fleet delegation to its specialist, not to the Fleet tier.
    ['ROUTING_DISPATCHER', null],
    ['SPECIALIZED_FLEET', null],
  ] as const)('%s pins the tier below to %o', (tier, pin) => {
    expect(tierPinOf(tier, locked)).toEqual(pin);
  });

  it('pins nothing for a tier the lock does not list', () => {
    expect(tierPinOf('PROGRESS_MONITOR', new Map())).toBeNull();
  });
});

describe('pinnedTo', () => {
  it('replaces a draft’s pin with the lock’s, and leaves a draft alone without one', () => {
    const draft = { objective: 'x', target_agent: identity('architect', 'b') };
    expect(pinnedTo(draft, identity('architect'))).toEqual({ objective: 'x', target_agent: identity('architect') });
    expect(pinnedTo(draft, null)).toBe(draft);
  });
});

describe('tierPinRefusal', () => {
  const own = identity('architect');
  it.each([
    ['no pin', {}, { agent: own, require: true }, null],
    ['its own identity', { target_agent: own }, { agent: own, require: false }, null],
    ['another prompt hash', { target_agent: identity('architect', 'f') }, { agent: own, require: false }, 'agent_hash_mismatch'],
    ['another version', { target_agent: { ...own, agent_version: '1.3.0' } }, { agent: own, require: false }, 'agent_hash_mismatch'],
    ['another agent', { target_agent: identity('dispatcher') }, { agent: own, require: false }, 'unknown_agent'],
    ['a pin it cannot check, governance not required', { target_agent: own }, { agent: null, require: false }, null],
    ['a pin it cannot check, governance required', { target_agent: own }, { agent: null, require: true }, 'unknown_agent'],
  ] as const)('%s → %s', (_label, payload, governance, refused) => {
    expect(tierPinRefusal('ABSTRACT_ARCHITECT', payload, governance)?.error_type ?? null).toBe(refused);
  });

  it('says what was pinned and what runs, hashes cut short', () => {
    expect(tierPinRefusal('ABSTRACT_ARCHITECT', { target_agent: identity('architect', 'f') }, { agent: own, require: false })?.detail).toBe(
      'the delegation expects architect 1.2.0 with prompt hash ffffffffffff…, but this tier runs architect 1.2.0 with prompt hash aaaaaaaaaaaa…',
    );
  });

  it('leaves the Fleet’s pins to the Fleet, which checks them per specialist', () => {
    expect(tierPinRefusal('SPECIALIZED_FLEET', { target_agent: identity('sim', 'f') }, { agent: own, require: true })).toBeNull();
  });
});
