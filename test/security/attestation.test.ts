import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Attestation, DelegationMessage, OutcomeMessage } from '@tierflow/protocol';
import { buildDelegation, generateKeySet, readAuditTrail, readRecording, type AuditRecord } from '@tierflow/runtime/admin';
import { redisClient } from '@tierflow/testing';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { submitJob } from '../support/queue-jobs.js';
import { simPlan } from '../support/runs.js';
import { BIN, tierflow } from './tier-processes.js';

// Governance attestations (docs/protocol.md#attestations) over the four tier processes: every
// delegation and outcome of a run carries one, logged on the trail with it; with
// `governance.require`, a delegation put on a tier's queue by hand without one, or with one whose
// claims do not hold, is answered failed without running, and a forged one is a security finding.
let dir: string;
let deployment: Deployment;
let redis: Redis;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tierflow-attestation-'));
  const config = join(dir, 'tierflow.config.json');
  await writeFile(config, JSON.stringify({ governance: { require: true }, boundaries: { dispatcher: ['fleet:sim'] } }));
  // Under governance.require a worker starts only with a lock file of its agents, where the command exists.
  if (existsSync(BIN)) {
    const locked = await tierflow(['lock', '--config', config], {});
    if (!/unknown command/i.test(locked.stderr)) expect(locked, locked.stderr).toMatchObject({ code: 0 });
  }
  deployment = await startDeployment('attestation', { TIERFLOW_LOG: 'silent', TIERFLOW_CONFIG: config, TIERFLOW_RETRY_BASE_MS: '50' });
  redis = redisClient(deployment.redis.url);
}, 90_000);

afterAll(async () => {
  redis?.disconnect();
  await deployment?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const attestationOf = (record: AuditRecord): Attestation | undefined => record.data?.attestation as Attestation | undefined;

/** A run to its end, and its trail. */
async function run(extra: Record<string, unknown> = {}): Promise<{ rootId: string; records: AuditRecord[] }> {
  const rootId = await deployment.client.enqueue(simPlan('all_success', [{}], extra));
  expect((await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 })).payload.status).toBe('success');
  return { rootId, records: await readAuditTrail(redis, deployment.runtime.prefix, rootId) };
}

/** A delegation put straight onto `queue` as job `message.id`, as anyone with queue access could: its answer, and the run's trail after it. */
async function submitted(queue: string, message: Record<string, unknown> & { id: string }, rootId: string): Promise<{ outcome: OutcomeMessage; records: AuditRecord[] }> {
  const job = await submitJob(redis, deployment.runtime.prefix, queue, message.id, message);
  const records = await readAuditTrail(redis, deployment.runtime.prefix, rootId);
  return { outcome: job.returnvalue as OutcomeMessage, records: records.filter((record) => record.id === message.id || record.id === `${message.id}.out`) };
}

const fleetDelegation = (id: string, specialist = 'sim'): DelegationMessage =>
  buildDelegation('ROUTING_DISPATCHER', id, null, { task_type: 'general', objective: 'by hand', specialist_hint: specialist, task_data: { sim: {} } }, Date.now(), null, {
    boundaries: null,
    governance: { require: false, agent: null },
  });

describe('attestations on a run', () => {
  it('puts one on every delegation and outcome, logged on the trail under the message’s own id', async () => {
    const { rootId, records } = await run({ composition: { sim: 100 } });
    const handoffs = records.filter((record) => (record.kind === 'delegation' || record.kind === 'outcome') && record.from !== 'client');
    // Monitor → Architect → Dispatcher → Fleet and back: each sent and received, and the final outcome to the client.
    expect(handoffs).toHaveLength(13);
    for (const record of handoffs) {
      // The run's outcome is the Architect's answer under the root's id: its envelope, and so its attestation, name the Architect.
      const sender = record.to === 'client' ? 'ABSTRACT_ARCHITECT' : record.from;
      expect(attestationOf(record), `${record.kind} ${record.direction} ${record.id}`).toMatchObject({ audit_ref: `${rootId}/${record.id}`, source: { tier: sender } });
    }
    const leaf = handoffs.find((record) => record.kind === 'delegation' && record.to === 'SPECIALIZED_FLEET' && record.direction === 'received')!;
    // The Dispatcher is bounded to fleet:sim, and the subtask declares its archetype.
    expect(attestationOf(leaf)).toMatchObject({ target: { tier: 'SPECIALIZED_FLEET', verified_by: 'pin' }, boundaries: 'checked', composition: 'valid' });
    // With a governance section, each tier names itself by its identity in the manifest.
    expect(attestationOf(leaf)?.source.agent).toMatchObject({ agent_id: 'dispatcher', prompt_hash: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown });
    // The recording keeps the whole message, its attestation with it.
    const recorded = (await readRecording(redis, deployment.runtime.prefix, rootId)).nodes.get(leaf.id)!;
    expect(recorded.delegation?.message).toMatchObject({ attestation: attestationOf(leaf) });
    expect(recorded.outcome?.message).toMatchObject({ attestation: { audit_ref: `${rootId}/${leaf.id}.out`, composition: 'valid' } });
    const architect = handoffs.find((record) => record.kind === 'delegation' && record.to === 'ABSTRACT_ARCHITECT')!;
    expect(attestationOf(architect)).toMatchObject({ boundaries: 'unbounded', composition: 'not_declared', source: { verified_by: 'none' } });
  });

  it('refuses a plan whose composition does not sum to 100 %, saying why', async () => {
    const rootId = await deployment.client.enqueue(simPlan('all_success', [{}], { composition: { sim: 70 } }));
    const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 });
    expect(outcome.payload.status).toBe('failed');
    const records = await readAuditTrail(redis, deployment.runtime.prefix, rootId);
    const dispatcher = records.find((record) => record.kind === 'outcome' && record.direction === 'sent' && record.from === 'ROUTING_DISPATCHER');
    expect(dispatcher?.detail).toBe('composition_invalid');
  });
});

describe('a delegation put on a queue by hand, with governance required', () => {
  it('without an attestation: answered failed, attestation_missing, without running, and refused on the trail', async () => {
    const { rootId } = await run();
    const { attestation: _none, ...bare } = buildDelegation('ABSTRACT_ARCHITECT', `${rootId}.0-0.7-0`, `${rootId}.0-0`, { task_type: 'general', objective: 'by hand' }, Date.now());
    const { outcome, records } = await submitted('dispatcher', bare, rootId);
    expect(outcome.payload).toMatchObject({ status: 'failed', error_type: 'attestation_missing', recoverable: false });
    expect(outcome.payload.error_detail).toContain('carries no governance attestation');
    expect(records.map((record) => `${record.kind} ${record.direction}`)).toEqual(['delegation received', 'refusal received', 'outcome sent']);
    expect(records[1]).toMatchObject({ status: 'rejected', data: { error_type: 'attestation_missing' } });
    // Missing is not forged: no security finding.
    expect(records.some((record) => record.kind === 'security')).toBe(false);
  });

  it.each<[string, (rootId: string, id: string) => Record<string, unknown> & { id: string }, RegExp]>([
    [
      'an audit_ref naming another message',
      (rootId, id) => {
        const message = fleetDelegation(id);
        return { ...message, attestation: { ...message.attestation!, audit_ref: `${rootId}/${rootId}.0-0` } };
      },
      /audit_ref .* names another entry/,
    ],
    [
      'boundaries claimed for a hop the boundaries forbid',
      (_rootId, id) => {
        const message = fleetDelegation(id, 'shell');
        return { ...message, attestation: { ...message.attestation!, boundaries: 'checked' } };
      },
      /boundaries forbid it/,
    ],
  ])('with %s: answered failed, attestation_invalid, and flagged as a security finding', async (_name, forge, reason) => {
    const { rootId } = await run();
    const id = `${rootId}.0-0.0-0.7-${Math.floor(Math.random() * 1000)}`;
    const { outcome, records } = await submitted('fleet', forge(rootId, id), rootId);
    expect(outcome.payload).toMatchObject({ status: 'failed', error_type: 'attestation_invalid', recoverable: false });
    expect(outcome.payload.error_detail).toMatch(reason);
    // The refused work never ran: no progress, no specialist's answer.
    expect(outcome.payload.summary).toMatch(/^failed: /);
    expect(records.map((record) => `${record.kind} ${record.direction}`)).toEqual(['delegation received', 'refusal received', 'outcome sent', 'security sent']);
    expect(records[3]).toMatchObject({ status: 'flagged', data: { kind: 'attestation_invalid', severity: 'high' } });
  });
});

describe('in a deployment that signs', () => {
  let signed: Deployment;
  let keysRedis: Redis;

  beforeAll(async () => {
    const keysDir = join(dir, 'keys');
    generateKeySet(keysDir);
    signed = await startDeployment('attestation-signed', { TIERFLOW_LOG: 'silent', TIERFLOW_KEYS_DIR: keysDir });
    keysRedis = redisClient(signed.redis.url);
  }, 90_000);

  afterAll(async () => {
    keysRedis?.disconnect();
    await signed?.stop();
  });

  it('attests that the sender signed, and refuses an attestation altered after signing as signature_invalid', async () => {
    const rootId = await signed.client.enqueue(simPlan('all_success', [{}]));
    expect((await signed.client.waitForResult(rootId, { timeoutMs: 20_000 })).payload.status).toBe('success');
    const records = await readAuditTrail(keysRedis, signed.runtime.prefix, rootId);
    const handoffs = records.filter((record) => (record.kind === 'delegation' || record.kind === 'outcome') && record.from !== 'client');
    expect(handoffs.map((record) => attestationOf(record)?.source.verified_by)).toEqual(handoffs.map(() => 'signature'));

    const dispatcher = signed.runtime.signing!.keys.signer('dispatcher');
    const message = buildDelegation('ROUTING_DISPATCHER', `${rootId}.0-0.0-0.7-0`, null, { task_type: 'general', objective: 'by hand', specialist_hint: 'sim' }, Date.now(), dispatcher, {
      boundaries: null,
      governance: { require: false, agent: null },
    });
    const altered = { ...message, attestation: { ...message.attestation!, boundaries: 'checked' } };
    const job = await submitJob(keysRedis, signed.runtime.prefix, 'fleet', message.id, altered);
    expect(await job.isFailed()).toBe(true);
    expect((await signed.client.deadLetters().get(`fleet-${message.id}`))?.reason).toMatch(/^signature_invalid: .*forged, or altered/);
  });
});
