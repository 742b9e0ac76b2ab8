import { describe, expect, it } from 'vitest';
import { checkBoundary, targetParty, type Boundaries } from './boundaries.js';

const boundaries: Boundaries = { dispatcher: ['fleet:sim', 'fleet:python-*'], 'arch*': ['dispatcher'] };

describe('collaboration boundaries', () => {
  it.each([
    ['dispatcher', 'fleet:sim', true],
    ['dispatcher', 'fleet:python-lora', true],
    ['dispatcher', 'fleet:shell', false],
    ['dispatcher', 'fleet:python', false],
    ['architect', 'dispatcher', true],
    ['architect', 'fleet:sim', false],
    // Not named: not bounded.
    ['monitor', 'architect', true],
  ])('%s → %s: %s', (from, to, ok) => {
    expect(checkBoundary(boundaries, from, to).ok).toBe(ok);
  });

  it('say why a handoff is refused, and where the sender may hand work instead', () => {
    expect(checkBoundary(boundaries, 'dispatcher', 'fleet:shell')).toEqual({
      ok: false,
      reason: 'dispatcher may not hand work to fleet:shell: outside its collaboration boundaries',
      allowed: ['fleet:sim', 'fleet:python-*'],
    });
  });

  it('bound nothing when none are declared, and read patterns literally but for *', () => {
    expect(checkBoundary(null, 'dispatcher', 'fleet:anything').ok).toBe(true);
    expect(checkBoundary({ dispatcher: ['fleet:a.b'] }, 'dispatcher', 'fleet:aXb').ok).toBe(false);
    expect(checkBoundary({ dispatcher: [] }, 'dispatcher', 'fleet:sim').ok).toBe(false);
  });

  it('name a Fleet target by its specialist', () => {
    expect([targetParty('fleet', 'sim'), targetParty('fleet', null), targetParty('dispatcher', 'sim')]).toEqual(['fleet:sim', 'fleet', 'dispatcher']);
  });
});
