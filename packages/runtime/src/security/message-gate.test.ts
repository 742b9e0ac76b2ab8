import { uniquePrefix } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import type { Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { readAssignment } from '../messages/assignment.js';
import { MessageGate } from './message-gate.js';
import { buildDelegation } from '../messages/messages.js';
import { ReplayGuard } from './replay-guard.js';
import { signRecord } from './signing.js';
import type { Signer } from './signing-keys.js';
import { memoryKeySet } from '../testing/keys.js';

const keys = memoryKeySet();
const signing = keys.signing;
const dispatcher = keys.signer('dispatcher');
const db = usePrivateRedis();

/** What the gate reads of a BullMQ job: its id, its enqueue time, its data as stored. */
function job(id: string, data: unknown, timestamp: number): Job {
  return { id, timestamp, data: JSON.parse(JSON.stringify(data)) as unknown } as Job;
}

function fleetMessage(id: string, now: number, signer: Signer | null = dispatcher, timeoutMs = 30_000) {
  return buildDelegation('ROUTING_DISPATCHER', id, null, { task_type: 'general', objective: 'x', specialist_hint: 'sim', timeout_ms: timeoutMs }, now, signer);
}

async function refusal(gate: MessageGate, candidate: Job, now?: number): Promise<string> {
  try {
    await gate.admit(candidate, readAssignment('SPECIALIZED_FLEET', candidate.data), now ?? Date.now());
  } catch (error) {
    return (error as Error).message;
  }
  return 'admitted';
}

function gateFor(label: string): { gate: MessageGate; prefix: string } {
  const prefix = uniquePrefix(label);
  return { gate: new MessageGate(db.redis, prefix, 'SPECIALIZED_FLEET', signing, 3600_000), prefix };
}

describe('the message gate of a tier that signs', () => {
  it('admits a signed message, and the same job again and again (retries, stalls, resumed passes)', async () => {
    const { gate } = gateFor('gate-ok');
    const now = Date.now();
    const first = job('m1', fleetMessage('m1', now), now + 2);
    expect(await refusal(gate, first)).toBe('admitted');
    expect(await refusal(gate, first, now + 10 * 60_000)).toBe('admitted');
  });

  it('refuses a copy added as a new job under the same id, while the record lives', async () => {
    const { gate } = gateFor('gate-replay');
    const now = Date.now();
    const message = fleetMessage('m2', now);
    expect(await refusal(gate, job('m2', message, now + 1))).toBe('admitted');
    expect(await refusal(gate, job('m2', message, now + 50))).toMatch(/^message_replayed: message m2 was already accepted as a job enqueued at/);
  });

  it('refuses a copy re-added after the window, even once its record is gone', async () => {
    const { gate } = gateFor('gate-stale');
    const now = Date.now() - 3600_000;
    expect(await refusal(gate, job('m3', fleetMessage('m3', now), now + 6 * 60_000))).toMatch(/^message_stale: signed at .* but enqueued at/);
  });

  it.each<[string, (m: Record<string, unknown>) => void, RegExp]>([
    ['unsigned', (m) => delete m.signature, /^signature_invalid: unsigned/],
    ['altered', (m) => ((m.payload as Record<string, unknown>).objective = 'other'), /^signature_invalid: signature does not match/],
  ])('refuses an %s message before recording anything', async (_name, mutate, reason) => {
    const { gate, prefix } = gateFor('gate-bad');
    const now = Date.now();
    const message = JSON.parse(JSON.stringify(fleetMessage('m4', now))) as Record<string, unknown>;
    mutate(message);
    expect(await refusal(gate, job('m4', message, now))).toMatch(reason);
    expect(await db.redis.exists(new ReplayGuard(db.redis, prefix, 'SPECIALIZED_FLEET').key('m4'))).toBe(0);
  });

  it('refuses a signed message under another job id', async () => {
    const { gate } = gateFor('gate-id');
    const now = Date.now();
    expect(await refusal(gate, job('other', fleetMessage('m5', now), now))).toMatch(/^job_id_mismatch: job other carries message m5/);
  });

  it('keeps the record past the deadline, at least the de-duplication TTL', async () => {
    const { gate, prefix } = gateFor('gate-ttl');
    const now = Date.now();
    await gate.admit(job('m6', fleetMessage('m6', now, dispatcher, 7_200_000), now), readAssignment('SPECIALIZED_FLEET', fleetMessage('m6', now, dispatcher, 7_200_000)), now);
    const ttl = await db.redis.pttl(new ReplayGuard(db.redis, prefix, 'SPECIALIZED_FLEET').key('m6'));
    expect(ttl).toBeGreaterThan(7_200_000 + 3_500_000);
    expect(ttl).toBeLessThanOrEqual(7_200_000 + 3_600_000);
  });

  it('admits a signed root objective on the Monitor, timed by submitted_at', async () => {
    const prefix = uniquePrefix('gate-root');
    const gate = new MessageGate(db.redis, prefix, 'PROGRESS_MONITOR', signing, 3600_000);
    const now = Date.now();
    const root = signRecord({ kind: 'root', root_id: 'r1', submitted_at: new Date(now).toISOString(), objective: { objective: 'o' } }, keys.signer('client'));
    const candidate = job('r1', root, now + 1);
    await expect(gate.admit(candidate, readAssignment('PROGRESS_MONITOR', candidate.data), now + 2)).resolves.toBeUndefined();
    const unsigned = job('r2', { ...root, root_id: 'r2', signature: undefined }, now);
    await expect(gate.admit(unsigned, readAssignment('PROGRESS_MONITOR', unsigned.data), now + 2)).rejects.toThrow(/^signature_invalid: unsigned/);
    const byTier = job('r3', signRecord({ ...root, root_id: 'r3' }, keys.signer('architect')), now);
    await expect(gate.admit(byTier, readAssignment('PROGRESS_MONITOR', byTier.data), now + 2)).rejects.toThrow(/^signature_invalid: signed by architect .* only client may sign this/);
  });

  it("refuses a delegation signed by any party but the tier it names as its source: the Fleet's key cannot send the Fleet work", async () => {
    const { gate } = gateFor('gate-party');
    const now = Date.now();
    for (const party of ['fleet', 'client', 'architect'] as const) {
      const forged = fleetMessage(`p-${party}`, now, keys.signer(party));
      expect(await refusal(gate, job(`p-${party}`, forged, now))).toMatch(new RegExp(`^signature_invalid: signed by ${party} .* only dispatcher may sign this`));
    }
  });
});
