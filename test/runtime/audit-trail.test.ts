import { auditKey, chainHash, readAuditTrail, type AuditRecord } from '@tierflow/runtime/admin';
import { type RunNode } from '@tierflow/runtime';
import { redisClient, waitFor } from '@tierflow/testing';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tierflow } from '../security/tier-processes.js';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { simPlan, treeNodes } from '../support/runs.js';
import { submitJob } from '../support/queue-jobs.js';

// Four worker processes write a run's audit trail; `tierflow audit` reads it back.
const AUDIT_TTL_MS = 3_600_000;
let deployment: Deployment;
let redis: Redis;

beforeAll(async () => {
  deployment = await startDeployment('audit', { TIERFLOW_LOG: 'silent', TIERFLOW_AUDIT_TTL_MS: String(AUDIT_TTL_MS), TIERFLOW_RETRY_BASE_MS: '50' });
  redis = redisClient(deployment.redis.url);
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  await deployment?.stop();
});

const env = (): NodeJS.ProcessEnv => ({ REDIS_URL: deployment.redis.url, TIERFLOW_PREFIX: deployment.runtime.prefix });

async function audit(rootId: string): Promise<AuditRecord[]> {
  const result = await tierflow(['audit', rootId, '--json'], env());
  expect(result, result.stderr).toMatchObject({ code: 0 });
  return JSON.parse(result.stdout) as AuditRecord[];
}

const hop = (record: AuditRecord): string => `${record.kind} ${record.direction} ${record.from}→${record.to}`;

/** Each message is on record as sent before it is on record as received. */
function expectSentBeforeReceived(records: readonly AuditRecord[]): void {
  records.forEach((record, index) => {
    if (record.direction !== 'received' || record.from === 'client') return;
    const sent = records.findIndex((other) => other.id === record.id && other.direction === 'sent' && (record.kind !== 'cancellation' || other.correlation_id === record.correlation_id));
    expect(sent, `${hop(record)} ${record.id}`).toBeGreaterThanOrEqual(0);
    expect(sent).toBeLessThan(index);
  });
}

describe('the audit trail of a run', () => {
  it('shows every handoff in order, as the tierflow command prints it', async () => {
    const rootId = await deployment.client.enqueue(simPlan('all_success', [{}, { confidence: 0.85 }]));
    expect((await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 })).payload.status).toBe('success');
    const records = await audit(rootId);

    // Two Fleet children: 10 + 5 × 2 entries, each handoff sent then received, and the routing decision of each leaf.
    expect(records).toHaveLength(20);
    expect(records.filter((record) => record.kind === 'decision').map((record) => [hop(record), record.detail, record.data?.chosen])).toEqual([
      ['decision sent ROUTING_DISPATCHER→SPECIALIZED_FLEET', 'fixed: sim (only_candidate)', 'sim'],
      ['decision sent ROUTING_DISPATCHER→SPECIALIZED_FLEET', 'fixed: sim (only_candidate)', 'sim'],
    ]);
    expect(records.map((record) => record.stream_id)).toEqual([...records.map((record) => record.stream_id)].sort((a, b) => a.localeCompare(b, 'en', { numeric: true })));
    expect(records[0]).toMatchObject({ from: 'client', to: 'PROGRESS_MONITOR', kind: 'delegation', direction: 'received', id: rootId, attempt: 1, detail: 'objective' });
    expect(records.at(-1)).toMatchObject({ from: 'PROGRESS_MONITOR', to: 'client', kind: 'outcome', direction: 'sent', id: `${rootId}.out`, status: 'success' });
    expectSentBeforeReceived(records);
    const hops = records.map(hop);
    expect(hops.slice(0, 5)).toEqual([
      'delegation received client→PROGRESS_MONITOR',
      'delegation sent PROGRESS_MONITOR→ABSTRACT_ARCHITECT',
      'delegation received PROGRESS_MONITOR→ABSTRACT_ARCHITECT',
      'delegation sent ABSTRACT_ARCHITECT→ROUTING_DISPATCHER',
      'delegation received ABSTRACT_ARCHITECT→ROUTING_DISPATCHER',
    ]);
    // The Dispatcher reads both Fleet outcomes at once, when its round settles.
    expect(hops.slice(-7)).toEqual([
      'outcome received SPECIALIZED_FLEET→ROUTING_DISPATCHER',
      'outcome received SPECIALIZED_FLEET→ROUTING_DISPATCHER',
      'outcome sent ROUTING_DISPATCHER→ABSTRACT_ARCHITECT',
      'outcome received ROUTING_DISPATCHER→ABSTRACT_ARCHITECT',
      'outcome sent ABSTRACT_ARCHITECT→PROGRESS_MONITOR',
      'outcome received ABSTRACT_ARCHITECT→PROGRESS_MONITOR',
      'outcome sent PROGRESS_MONITOR→client',
    ]);
    const fleetOutcomes = records.filter((record) => record.kind === 'outcome' && record.from === 'SPECIALIZED_FLEET');
    expect(fleetOutcomes.map((record) => [record.direction, record.confidence]).sort()).toEqual([
      ['received', 0.85],
      ['received', 0.9],
      ['sent', 0.85],
      ['sent', 0.9],
    ]);
    // Retention by age: the stream lives TIERFLOW_AUDIT_TTL_MS past its last append.
    const ttl = await redis.pttl(auditKey(deployment.runtime.prefix, rootId));
    expect(ttl).toBeGreaterThan(AUDIT_TTL_MS - 60_000);
    expect(ttl).toBeLessThanOrEqual(AUDIT_TTL_MS);

    const text = await tierflow(['audit', rootId], env());
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(21);
    expect(lines[0]).toMatch(/^TIME\s+FROM\s+TO\s+KIND\s+DIRECTION\s+ID\s+STATUS\s+CONFIDENCE\s+DETAIL$/);
    expect(lines[1]).toMatch(new RegExp(`client\\s+monitor\\s+delegation\\s+received\\s+${rootId}\\s+-\\s+-\\s+objective$`));
    expect(lines.at(-1)).toMatch(new RegExp(`monitor\\s+client\\s+outcome\\s+sent\\s+${rootId}\\.out\\s+success\\s+0\\.88`));
  });

  it('records a retry as a second delivery of the same message', async () => {
    const rootId = await deployment.client.enqueue(simPlan('all_success', [{ fail_times: 1 }]));
    expect((await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 })).payload.status).toBe('success');
    const fleet = (await audit(rootId)).filter((record) => record.to === 'SPECIALIZED_FLEET' || record.from === 'SPECIALIZED_FLEET');
    expect(fleet.map((record) => `${hop(record)} ${record.attempt ?? ''}`)).toEqual([
      'delegation sent ROUTING_DISPATCHER→SPECIALIZED_FLEET ',
      'decision sent ROUTING_DISPATCHER→SPECIALIZED_FLEET ',
      'delegation received ROUTING_DISPATCHER→SPECIALIZED_FLEET 1',
      'delegation received ROUTING_DISPATCHER→SPECIALIZED_FLEET 2',
      'outcome sent SPECIALIZED_FLEET→ROUTING_DISPATCHER ',
      'outcome received SPECIALIZED_FLEET→ROUTING_DISPATCHER ',
    ]);
  });

  it('records a cancellation as sent by the client and received by every node it stopped', async () => {
    const rootId = await deployment.client.enqueue(simPlan('all_success', [{ delay_ms: 30_000 }]));
    await waitFor(async () => treeNodes((await deployment.client.tree(rootId)) ?? ({ children: [] } as unknown as RunNode), 'SPECIALIZED_FLEET')[0]?.status === 'running', {
      description: 'the leaf to run',
    });
    await deployment.client.cancel(rootId, { reason: 'audit drill' });
    expect((await deployment.client.waitForResult(rootId, { timeoutMs: 10_000 })).payload.status).toBe('cancelled');
    const records = await audit(rootId);
    const cancellations = records.filter((record) => record.kind === 'cancellation');
    expect(cancellations.filter((record) => record.direction === 'sent')).toHaveLength(4);
    expect(cancellations.every((record) => record.id === `${rootId}.cancel` && record.detail === 'audit drill')).toBe(true);
    expect(cancellations.filter((record) => record.direction === 'sent').every((record) => record.by === 'client')).toBe(true);
    expect(
      cancellations
        .filter((record) => record.direction === 'received')
        .map((record) => record.to)
        .sort(),
    ).toEqual(['ABSTRACT_ARCHITECT', 'PROGRESS_MONITOR', 'ROUTING_DISPATCHER', 'SPECIALIZED_FLEET']);
    expectSentBeforeReceived(records);
    expect(records.at(-1)).toMatchObject({ kind: 'outcome', direction: 'sent', to: 'client', status: 'cancelled' });
  });

  it('shows a specialist’s progress while it works, in the run’s tree and on its trail, one update a second at most', async () => {
    // A leaf that outlasts the test: what is checked while it runs cannot race its end, however slow the host.
    const rootId = await deployment.client.enqueue(simPlan('all_success', [{ delay_ms: 60_000 }]));
    const leafId = `${rootId}.0-0.0-0.0-0`;
    // While it runs: the leaf's latest progress, in the tree and in what `tierflow status` prints.
    const running = await waitFor(
      async () => {
        const leaf = treeNodes((await deployment.client.tree(rootId))!, 'SPECIALIZED_FLEET')[0];
        return leaf?.progress && leaf.source !== 'outcome' ? leaf : null;
      },
      { timeoutMs: 10_000, description: 'the leaf to report progress' },
    );
    expect(running.progress).toMatchObject({ percent: expect.any(Number) as unknown, note: expect.stringMatching(/^sim: \d+ of 60000 ms$/) as unknown });
    const text = await tierflow(['status', rootId], env());
    expect(text.stdout).toMatch(new RegExp(`${leafId.replaceAll('.', '\\.')}\\s+general\\s+sim\\s+running\\s+\\d+% sim: \\d+ of 60000 ms`));
    // sim reports every half second; the trail keeps one update a second at most.
    const progress = await waitFor(
      async () => {
        const records = (await readAuditTrail(redis, deployment.runtime.prefix, rootId)).filter((record) => record.kind === 'progress');
        return records.length >= 3 ? records : null;
      },
      { timeoutMs: 15_000, description: 'three progress updates on the trail' },
    );
    await deployment.client.cancel(rootId, { reason: 'seen enough' });
    expect((await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 })).payload.status).toBe('cancelled');
    for (const record of progress) {
      expect(record).toMatchObject({ from: 'SPECIALIZED_FLEET', to: 'ROUTING_DISPATCHER', direction: 'sent', id: leafId, by: 'SPECIALIZED_FLEET' });
      expect(record.detail).toMatch(/^\d+% sim: \d+ of 60000 ms$/);
    }
    const times = progress.map((record) => Date.parse(record.time));
    for (let i = 1; i < times.length; i += 1) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(990);
  });

  it('chains every entry: --verify finds a trail intact, then an entry removed, and one edited; export writes lines that verify offline', async () => {
    const rootId = await deployment.client.enqueue(simPlan('all_success', [{}]));
    expect((await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 })).payload.status).toBe('success');
    const intact = await tierflow(['audit', rootId, '--verify'], env());
    expect(intact, intact.stderr).toMatchObject({ code: 0 });
    expect(intact.stdout).toMatch(new RegExp(`audit trail of ${rootId}: \\d+ entries, chain intact\n`));

    const exported = await tierflow(['audit', 'export', rootId], env());
    expect(exported, exported.stderr).toMatchObject({ code: 0 });
    const lines = exported.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { root_id: string; stream_id: string; hash: string; entry: unknown });
    expect(lines.length).toBeGreaterThan(5);
    let previous = '';
    for (const line of lines) {
      expect(line.root_id).toBe(rootId);
      expect(line.hash).toBe(chainHash(previous, JSON.stringify(line.entry)));
      previous = line.hash;
    }

    // --all finds every trail the deployment holds by SCAN: this run's among them, whole.
    const all = await tierflow(['audit', 'export', '--all'], env());
    expect(all, all.stderr).toMatchObject({ code: 0 });
    expect(all.stdout.split('\n').filter((line) => line.includes(`"root_id":"${rootId}"`))).toHaveLength(lines.length);

    // An operator with the admin's rights removes the Fleet's outcome: both the break and Redis's count give it away.
    const key = auditKey(deployment.runtime.prefix, rootId);
    const removed = (await readAuditTrail(redis, deployment.runtime.prefix, rootId)).find((record) => record.kind === 'outcome' && record.from === 'SPECIALIZED_FLEET' && record.direction === 'sent')!;
    await redis.xdel(key, removed.stream_id);
    const broken = await tierflow(['audit', rootId, '--verify', '--json'], env());
    expect(broken.code).toBe(1);
    expect(JSON.parse(broken.stdout)).toMatchObject({
      intact: false,
      problems: expect.arrayContaining([{ kind: 'removed', count: 1, last_removed: removed.stream_id }, expect.objectContaining({ kind: 'edited' })]) as unknown,
    });

    // Rewritten whole, with one entry's detail changed and every hash kept: the edit is named.
    const other = await deployment.client.enqueue(simPlan('all_success', [{}]));
    await deployment.client.waitForResult(other, { timeoutMs: 20_000 });
    const otherKey = auditKey(deployment.runtime.prefix, other);
    const stored = await redis.xrange(otherKey, '-', '+');
    await redis.del(otherKey);
    const target = stored.findIndex(([, fields]) => fields[1]!.includes('"kind":"outcome"'));
    for (const [index, [id, fields]] of stored.entries()) {
      const entry = index === target ? fields[1]!.replace('"confidence":', '"confidence":0.99,"was":') : fields[1]!;
      await redis.xadd(otherKey, id, 'e', entry, 'h', fields[3]!);
    }
    const edited = await tierflow(['audit', other, '--verify'], env());
    expect(edited.code).toBe(1);
    expect(edited.stdout).toContain(`${stored[target]![0]}: does not follow from the entry before it`);
  });

  it("puts a job a tier refused on its run's trail, kept as a dead letter; a refused job naming no run opens no trail", async () => {
    const rootId = await deployment.client.enqueue(simPlan('all_success', [{}]));
    await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 });
    const hostile = `${rootId}.0-0.0-0.9-9`;
    const job = await submitJob(redis, deployment.runtime.prefix, 'fleet', hostile, { hello: 'world' });
    expect(await job.isFailed()).toBe(true);
    const refusals = (await audit(rootId)).filter((record) => record.kind === 'refusal');
    expect(refusals).toEqual([
      expect.objectContaining({
        from: 'SPECIALIZED_FLEET',
        to: 'SPECIALIZED_FLEET',
        direction: 'received',
        id: hostile,
        status: 'rejected',
        data: { queue: 'fleet', dead_letter: `fleet-${hostile}` },
      }),
    ]);
    expect(refusals[0]!.detail).toContain('invalid message');
    expect((await tierflow(['audit', rootId, '--verify'], env())).code).toBe(0);

    await submitJob(redis, deployment.runtime.prefix, 'fleet', 'no-such-run.0-0', { hello: 'world' });
    expect(await redis.exists(auditKey(deployment.runtime.prefix, 'no-such-run'))).toBe(0);
  });

  it('says so for a root it has no trail of', async () => {
    const result = await tierflow(['audit', 'no-such-root'], env());
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toContain('no audit trail for no-such-root');
  });
});
