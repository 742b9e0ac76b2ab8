import { checkAttestation, type DelegationMessage } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { buildDelegation } from '../messages/messages.js';
import { checkSignature } from '../security/signing.js';
import { memoryKeySet } from '../testing/keys.js';
import { resignForReplay } from './resign.js';

const keys = memoryKeySet();

describe('resignForReplay', () => {
  it('dates, attests and signs a refused delegation again as its sender: its attestation still holds', () => {
    const unsigned = buildDelegation('ROUTING_DISPATCHER', 'root-1.0-0.0-0.0-0', null, { task_type: 'general', objective: 'x' }, Date.parse('2026-11-29T10:00:00Z'));
    const now = Date.parse('2026-11-29T11:00:00Z');
    const again = resignForReplay(JSON.parse(JSON.stringify(unsigned)), keys.signing, now) as DelegationMessage;
    expect(again.timestamp).toBe(new Date(now).toISOString());
    expect(again.attestation).toMatchObject({ issued_at: again.timestamp, source: { verified_by: 'signature' } });
    expect(checkSignature(again, keys.signing, 'dispatcher').ok).toBe(true);
    expect(checkAttestation(again, { rootId: 'root-1', require: true, boundaries: 'unbounded' })).toBeNull();
  });
});
