import { describe, expect, it } from 'vitest';
import { TIER_NAMES, TIER_SLUGS, tierOfSlug } from './tiers.js';

describe('TIER_SLUGS and tierOfSlug', () => {
  it('go both ways', () => {
    expect(TIER_SLUGS).toEqual({ PROGRESS_MONITOR: 'monitor', ABSTRACT_ARCHITECT: 'architect', ROUTING_DISPATCHER: 'dispatcher', SPECIALIZED_FLEET: 'fleet' });
    for (const tier of TIER_NAMES) expect(tierOfSlug(TIER_SLUGS[tier])).toBe(tier);
  });

  it.each(['Fleet', 'FLEET', 'SPECIALIZED_FLEET', '', 'monitors'])('%j is no slug', (slug) => {
    expect(tierOfSlug(slug)).toBeNull();
  });
});
