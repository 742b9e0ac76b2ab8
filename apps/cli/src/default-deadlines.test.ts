import { DEFAULT_DISPATCHER_TIMEOUT_MS, DEFAULT_MAX_REVISIONS } from '@tierflow/architect';
import { DEFAULT_FLEET_TIMEOUT_MS } from '@tierflow/dispatcher';
import { DEFAULT_ARCHITECT_TIMEOUT_MS, DEFAULT_MAX_RESETS } from '@tierflow/monitor';
import { DEFAULT_WAIT_LIMIT_MS } from '@tierflow/runtime';
import { describe, expect, it } from 'vitest';

// The default deadlines of the four tiers, as `tierflow up` runs them (docs/operations.md#default-deadlines).
describe('the default deadlines', () => {
  it('give a leaf the minutes an ordinary model call takes: a long answer, or a slow or busy endpoint', () => {
    expect(DEFAULT_FLEET_TIMEOUT_MS).toBeGreaterThanOrEqual(5 * 60_000);
  });

  it('nest: the Dispatcher outlasts two Fleet deadlines (a dependent step, or a leaf sent again), the Architect every round it may send', () => {
    expect(DEFAULT_DISPATCHER_TIMEOUT_MS).toBeGreaterThanOrEqual(2 * DEFAULT_FLEET_TIMEOUT_MS);
    // The first round and each revision, and a model call of its own to plan each.
    expect(DEFAULT_ARCHITECT_TIMEOUT_MS).toBeGreaterThan((DEFAULT_MAX_REVISIONS + 1) * DEFAULT_DISPATCHER_TIMEOUT_MS);
  });

  it('end within a client’s default wait, the Monitor’s fresh attempts included', () => {
    expect((DEFAULT_MAX_RESETS + 1) * DEFAULT_ARCHITECT_TIMEOUT_MS).toBeLessThan(DEFAULT_WAIT_LIMIT_MS);
  });
});
