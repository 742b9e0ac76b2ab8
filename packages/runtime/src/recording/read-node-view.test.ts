import { uniquePrefix } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { appendAuditNow, type AuditEntry } from '../audit/audit-entry.js';
import { buildDelegation, buildOutcome } from '../messages/messages.js';
import { auditKey, recordKey } from '../redis/keys.js';
import { readNodeOutcome, readNodeView, readTimeline } from './read-node-view.js';
import { RunRecorder } from './run-recorder.js';

const db = usePrivateRedis();
const quiet = { info: () => undefined, warn: () => undefined };

const sent = (id: string, to: string): AuditEntry => ({
  time: new Date().toISOString(),
  from: 'x',
  to,
  kind: 'delegation',
  direction: 'sent',
  id,
  correlation_id: '',
  status: '',
  confidence: null,
  by: 'x',
  attempt: null,
  detail: 'execute',
});

describe('readNodeView', () => {
  it('records a context value once for the run, however many nodes read it, and shows it in each node’s input', async () => {
    const { redis } = db;
    const prefix = uniquePrefix('inspect');
    const recorder = new RunRecorder({ redis, prefix, tier: 'SPECIALIZED_FLEET', mode: 'full', ttlMs: 60_000, log: quiet, worker: 'h:1' });
    const ref = 'beads:routing/r/task-graph';
    const text = JSON.stringify({ subtasks: [{ objective: 'a' }, { objective: 'b' }] });
    const leaves = ['r.0-0.0-0.0-0', 'r.0-0.0-0.1-0'];
    for (const leaf of leaves) {
      const mark = recorder.context('r', leaf, 1_000, ref, text);
      expect(recorder.context('r', leaf, 1_000, 'beads:none', null)).toBeNull();
      const delegation = buildDelegation('ROUTING_DISPATCHER', leaf, 'r.0-0.0-0', { task_type: 'execute', objective: 'Add', context_refs: [ref] }, 1_000);
      const writes = redis.multi();
      recorder.write(writes, 'r', [{ kind: 'delegation', node: leaf, tier: 'SPECIALIZED_FLEET', at: 1_100, attempt: 1, message: delegation, context: { [ref]: mark } }]);
      await writes.exec();
    }
    // Another run reading the same value records it for itself.
    recorder.context('q', 'q.0-0', 1_000, ref, text);
    const kinds = async (root: string): Promise<string[]> =>
      (await redis.xrange(recordKey(prefix, root), '-', '+')).flatMap(([, fields]) => (JSON.parse(fields[1]!) as { kind: string }[]).map((entry) => entry.kind));
    await expect.poll(() => kinds('q')).toEqual(['context']);
    expect(await kinds('r')).toEqual(['context', 'delegation', 'delegation']);
    for (const leaf of leaves) expect((await readNodeView(redis, prefix, leaf))?.input?.context).toEqual([{ ref, value: JSON.parse(text) as unknown }]);
  });

  it('reads a node from its recording, its job and its run tree; nothing known is null', async () => {
    const { redis } = db;
    const prefix = uniquePrefix('inspect');
    const leaf = 'r.0-0.0-0.0-0';
    const recorder = new RunRecorder({ redis, prefix, tier: 'SPECIALIZED_FLEET', mode: 'full', ttlMs: 60_000, log: quiet, worker: 'h:1' });
    const delegation = buildDelegation('ROUTING_DISPATCHER', leaf, 'r.0-0.0-0', { task_type: 'execute', objective: 'Add two numbers' }, 1_000);
    const tier = 'SPECIALIZED_FLEET';
    const writes = redis.multi();
    recorder.write(writes, 'r', [
      { kind: 'delegation', node: leaf, tier, at: 1_100, attempt: 1, message: delegation },
      { kind: 'pass', node: leaf, tier, worker: 'h:1', started_at: 1_100, ended_at: 1_300, attempt: 1, end: 'answered', error: null, queued_at: 1_000 },
      { kind: 'outcome', node: leaf, tier, at: 1_300, message: buildOutcome('SPECIALIZED_FLEET', leaf, { status: 'success', summary: '4', confidence: 1 }, 200, 1_300) },
    ]);
    await writes.exec();
    for (const [id, to] of [
      ['r.0-0', 'ABSTRACT_ARCHITECT'],
      ['r.0-0.0-0', 'ROUTING_DISPATCHER'],
      [leaf, 'SPECIALIZED_FLEET'],
    ] as const)
      await appendAuditNow(redis, auditKey(prefix, 'r'), [sent(id, to)], null);

    const view = await readNodeView(redis, prefix, leaf);
    expect(view).toMatchObject({ id: leaf, root_id: 'r', tier: 'SPECIALIZED_FLEET', task_type: 'execute', recording: 'full', input: { objective: 'Add two numbers' }, outcome: { summary: '4' } });
    expect(view?.waits).toEqual([{ kind: 'queued', from: 1_000, to: 1_100 }]);
    expect(await readNodeOutcome(redis, prefix, leaf)).toMatchObject({ from: 'recording', message: { payload: { summary: '4' } } });
    expect(await readNodeView(redis, prefix, 'r.0-0.0-0.0-9')).toBeNull();
    expect(await readNodeOutcome(redis, prefix, 'r.0-0.0-0')).toBeNull();

    const timeline = await readTimeline(redis, prefix, 'r');
    expect(timeline?.nodes.map((node) => node.id)).toEqual(['r', 'r.0-0', 'r.0-0.0-0', leaf]);
    expect(await readTimeline(redis, prefix, 'unknown')).toBeNull();
  });

  it("without a recording, reads the node's input from its job; a recording key of another type reads as none", async () => {
    const { redis } = db;
    const prefix = uniquePrefix('inspect');
    const leaf = 's.0-0.0-0.0-0';
    await redis.set(recordKey(prefix, 's'), 'not a stream');
    const fleet = new Queue('fleet', { connection: redis, prefix });
    try {
      await fleet.add('execute', buildDelegation('ROUTING_DISPATCHER', leaf, 's.0-0.0-0', { task_type: 'execute', objective: 'Sum', context_refs: ['beads:a'] }, 1_000), { jobId: leaf });
    } finally {
      await fleet.close();
    }
    const view = await readNodeView(redis, prefix, leaf);
    expect(view).toMatchObject({ recording: 'none', input: { from: 'job', objective: 'Sum', context: [{ ref: 'beads:a', value: null }] }, outcome: null, passes: [] });
  });
});
