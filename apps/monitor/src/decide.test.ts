import type { OutcomeStatus } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { decideMonitor, type MonitorDecision } from './decide.js';

describe('decideMonitor', () => {
  it.each<[OutcomeStatus, boolean | null, number, number, MonitorDecision]>([
    ['success', null, 0, 1, 'evaluate'],
    ['partial', true, 0, 1, 'evaluate'],
    ['needs_clarification', true, 0, 1, 'pass_up'],
    ['blocked', true, 0, 1, 'pass_up'],
    ['failed', true, 0, 1, 'reset'],
    ['failed', true, 1, 1, 'evaluate'],
    ['failed', true, 1, 2, 'reset'],
    ['failed', false, 0, 1, 'evaluate'],
    ['failed', null, 0, 1, 'evaluate'],
    ['failed', true, 0, 0, 'evaluate'],
    ['timeout', true, 0, 1, 'evaluate'],
    ['cancelled', null, 0, 1, 'evaluate'],
  ])('%s, recoverable %s, resets %i of %i → %s', (status, recoverable, resets, maxResets, expected) => {
    expect(decideMonitor({ status, recoverable }, resets, maxResets)).toBe(expected);
  });
});
