import type { ChainableCommander } from 'ioredis';
import type { RedisClient } from '@tierflow/beads';
import { describe, expect, it } from 'vitest';
import { buildDelegation } from '../messages/messages.js';
import { delegationTo } from '../testing/index.js';
import { parseAuditFields } from './audit-entry.js';
import { AuditTrail } from './audit-trail.js';

const silent = { info: () => undefined, warn: () => undefined };
const clock = { now: () => Date.parse('2026-11-28T10:00:00.000Z') };

/** A pipeline that keeps the entries its audit script is given, as stream fields. */
function recorder(): { pipeline: ChainableCommander; added: string[][] } {
  const added: string[][] = [];
  const pipeline = { eval: (...args: string[]) => added.push(...args.slice(6).map((entry) => ['e', entry])) } as unknown as ChainableCommander;
  return { pipeline, added };
}

describe('AuditTrail.decisionsMade', () => {
  it('puts each decision on the trail about the delegation it names, from this tier to the one below, its record in data', () => {
    const trail = new AuditTrail({} as RedisClient, '{t}', 'ROUTING_DISPATCHER', 60_000, silent, clock);
    const assignment = delegationTo('ROUTING_DISPATCHER', 'r.0-0.0-0', { task_type: 'decompose_and_solve', objective: 'o' });
    const messages = [0, 1].map((i) => buildDelegation('ROUTING_DISPATCHER', `r.0-0.0-0.0-${i}`, assignment.id, { task_type: 'write', objective: `part ${i}` }, clock.now()));
    const { pipeline, added } = recorder();
    trail.decisionsMade(pipeline, assignment, messages, [
      { child: 1, detail: 'learned: b (sampled); fixed a', data: { chosen: 'b' } },
      { child: null, detail: 'the round', data: { note: 'whole' } },
      { child: 5, detail: 'no such child', data: {} },
    ]);
    const entries = added.map((fields, i) => parseAuditFields(`${i}-0`, fields));
    expect(entries).toEqual([
      expect.objectContaining({
        kind: 'decision',
        direction: 'sent',
        from: 'ROUTING_DISPATCHER',
        to: 'SPECIALIZED_FLEET',
        id: 'r.0-0.0-0.0-1',
        correlation_id: 'r.0-0.0-0',
        by: 'ROUTING_DISPATCHER',
        detail: 'learned: b (sampled); fixed a',
        data: { chosen: 'b' },
      }),
      expect.objectContaining({ kind: 'decision', from: 'ROUTING_DISPATCHER', to: 'ROUTING_DISPATCHER', id: 'r.0-0.0-0', detail: 'the round', data: { note: 'whole' } }),
    ]);
  });
});
