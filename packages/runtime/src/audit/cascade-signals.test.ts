import { describe, expect, it } from 'vitest';
import { buildOutcome } from '../messages/messages.js';
import { cascadeByNode } from './cascade-signals.js';
import type { CascadeCheck } from '@tierflow/protocol';

const check = (action: CascadeCheck['action'], upstream: string, confidence = 0.4): CascadeCheck => ({
  action,
  confidence,
  threshold: 0.3,
  upstream_id: `${upstream}.out`,
  checked_by: 'ROUTING_DISPATCHER',
});
const outcome = (id: string, cascade: CascadeCheck | undefined) =>
  buildOutcome('ROUTING_DISPATCHER', id, { status: 'success', summary: 's', confidence: 0.9, ...(cascade ? { cascade_check: cascade } : {}) }, 1, 0);

describe('cascadeByNode', () => {
  it('marks the node whose outcome was checked, with the signal people see; proceed marks nothing', () => {
    const found = cascadeByNode([outcome('r.0-0.0-0', check('flag_uncertainty', 'r.0-0.0-0.0-0', 0.6)), outcome('r.0-0.0-1', check('proceed', 'r.0-0.0-1.0-0')), outcome('r.0-0.0-2', undefined)]);
    expect([...found]).toEqual([['r.0-0.0-0.0-0', { signal: 'low_confidence', confidence: 0.6, threshold: 0.3, checked_by: 'ROUTING_DISPATCHER' }]]);
  });

  it('keeps the gravest check of a node carried up by several outcomes', () => {
    const found = cascadeByNode([
      outcome('r.0-0', check('needs_review', 'r.0-0.0-0.0-0')),
      outcome('r.0-0.0-0', check('reject_and_escalate', 'r.0-0.0-0.0-0', 0.2)),
      outcome('r', check('flag_uncertainty', 'r.0-0.0-0.0-0')),
    ]);
    expect(found.get('r.0-0.0-0.0-0')).toMatchObject({ signal: 'rejected', confidence: 0.2 });
    expect(found.size).toBe(1);
  });
});
