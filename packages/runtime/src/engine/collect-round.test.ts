import type { Job, Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { buildOutcome } from '../messages/messages.js';
import { attestedOutcome, type Attesting } from '../security/attestations.js';
import type { StepState } from '../steps/step-store.js';
import { collectRound, isPending } from './collect-round.js';

const NOW = Date.parse('2026-11-29T10:00:00Z');
const QUEUE = { qualifiedName: 'bull:fleet' } as unknown as Queue;
const JOB = { id: 'root-1.0-0.0-0', getIgnoredChildrenFailures: () => Promise.resolve({}) } as unknown as Job;
const request = { task_type: 'general', objective: 'x', specialist_hint: 'sim', constraints: [], context_refs: [], priority: 2, timeout_ms: null, deadline_hint: null, task_data: {} };
const child = { id: 'root-1.0-0.0-0.0-0', index: 0, request } as unknown as StepState['children'][number];
const state = { round: 0, strategy: 'all_success', children: [child], memo: null } as unknown as StepState;
const required: Attesting = { boundaries: null, governance: { require: true, agent: null } };

async function read(value: unknown, attesting: Attesting | null) {
  const round = await collectRound({
    job: JOB,
    lowerQueue: QUEUE,
    state,
    tier: 'ROUTING_DISPATCHER',
    mode: 'wait',
    timedOut: () => Promise.resolve(new Set()),
    signing: null,
    childValues: () => ({ [`bull:fleet:${child.id}`]: JSON.parse(JSON.stringify(value)) as unknown }),
    now: NOW,
    attesting,
  });
  if (isPending(round)) throw new Error('pending');
  return round.children[0]!.outcome.payload;
}

describe('collectRound and attestations', () => {
  const built = buildOutcome('SPECIALIZED_FLEET', child.id, { status: 'success', summary: 'done', confidence: 0.9 }, 5, NOW);
  const attested = attestedOutcome(built, 'root-1', request, false, required);

  it('reads a child’s attested outcome as it is', async () => {
    expect(await read(attested, required)).toMatchObject({ status: 'success' });
  });

  it('reads an unattested one as failed, attestation_missing, under governance.require; as it is without', async () => {
    expect(await read(built, required)).toMatchObject({ status: 'failed', error_type: 'attestation_missing', recoverable: false });
    expect(await read(built, { ...required, governance: { require: false, agent: null } })).toMatchObject({ status: 'success' });
  });

  it('reads one whose claims do not hold as failed, attestation_invalid, whatever require says', async () => {
    const forged = { ...attested, attestation: { ...attested.attestation!, audit_ref: 'root-1/root-1.0-0.0-0.0-9.out' } };
    const payload = await read(forged, { ...required, governance: { require: false, agent: null } });
    expect(payload).toMatchObject({ status: 'failed', error_type: 'attestation_invalid', recoverable: false });
    expect(payload.error_detail).toMatch(/audit_ref .* names another entry/);
  });
});
