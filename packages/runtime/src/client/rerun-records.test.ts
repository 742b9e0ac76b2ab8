import { uniquePrefix } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { describe, expect, it } from 'vitest';
import { TierflowClient } from './client.js';
import { resolveRuntimeOptions } from '../config/options.js';
import { cellOf } from '../cells/cells.js';
import { buildOutcome } from '../messages/messages.js';
import { RECORD_FIELD, type RecordEntryInput } from '../recording/record-entry.js';
import { recordKey, rerunKeys } from '../redis/keys.js';
import { readRunExport } from '../rerun/run-export.js';
import { rerunTtlMs } from './rerun-records.js';

const db = usePrivateRedis();

const OBJECTIVE = { objective: 'write the pieces', constraints: ['be brief'] };
const answer = (content: string) => ({ content, model: 'llm-writer', finish_reason: 'stop' });

function callEntry(node: string, hash: string, content: string): RecordEntryInput {
  return {
    kind: 'call',
    node,
    tier: 'fleet',
    purpose: 'specialist',
    endpoint: 'http://127.0.0.1:1/v1',
    model: 'llm-writer',
    request: { messages: [], params: {} },
    request_hash: hash,
    answer: answer(content),
    error: null,
    usage: { tokens_in: 1, tokens_out: 1, cost_usd: 0, llm_calls: 1 },
    started_at: 1,
    latency_ms: 1,
    tries: 1,
  };
}

/** A run as its client and its tiers left it: its root on the Monitor's queue (no worker takes it), and three leaves recorded with a call and an outcome each. */
async function recordedRun(client: TierflowClient, runtime: ReturnType<typeof resolveRuntimeOptions>) {
  const rootId = await client.enqueue(OBJECTIVE);
  const leaves = [0, 1, 2].map((index) => `${rootId}.0-0.0-0.0-${index}`);
  const key = recordKey(cellOf(runtime, rootId).prefix, rootId);
  for (const [index, leaf] of leaves.entries()) {
    const entries: RecordEntryInput[] = [
      callEntry(leaf, `h${index}`, `piece ${index}`),
      { kind: 'outcome', node: leaf, tier: 'fleet', at: 2, message: buildOutcome('SPECIALIZED_FLEET', leaf, { status: 'success', summary: `piece ${index}`, confidence: 0.9 }, 5, 1_000) },
    ];
    for (const entry of entries) await db.redis.xadd(key, '*', RECORD_FIELD, JSON.stringify(entry));
  }
  return { rootId, leaves };
}

describe('a rerun’s records', () => {
  it('are written in the new root’s cell before it is submitted, linked both ways, with the retention TTL', async () => {
    const runtime = resolveRuntimeOptions({ redisUrl: db.server.url, prefix: uniquePrefix('rerun'), cells: 4 });
    const client = new TierflowClient(runtime);
    try {
      const { rootId, leaves } = await recordedRun(client, runtime);
      const fork = await client.rerun(rootId, { from: leaves[1]!, replay: 'strict', set: ['objective="piece one, again"'] });
      const keys = rerunKeys(cellOf(runtime, fork.rootId).prefix, fork.rootId);
      expect(JSON.parse((await db.redis.get(keys.spec))!)).toEqual({ of: rootId, from: leaves[1], replay: 'strict', edits: ['objective="piece one, again"'] });
      expect(await db.redis.hgetall(keys.replay)).toEqual({ h0: JSON.stringify(answer('piece 0')), h1: JSON.stringify(answer('piece 1')), h2: JSON.stringify(answer('piece 2')) });
      const reuse = await db.redis.hgetall(keys.reuse);
      expect(Object.keys(reuse).sort()).toEqual(['.0-0.0-0.0-0', '.0-0.0-0.0-2']);
      expect(JSON.parse(reuse['.0-0.0-0.0-2']!)).toMatchObject({ correlation_id: leaves[2], payload: { summary: 'piece 2' } });
      for (const key of [keys.spec, keys.replay, keys.reuse]) {
        const ttl = await db.redis.pttl(key);
        expect(ttl).toBeGreaterThan(rerunTtlMs(runtime) - 60_000);
      }
      // The new root carries its link, and the original's cell keeps the other way.
      expect(await client.rerunLinks(fork.rootId)).toEqual({ rerun_of: rootId, reruns: [] });
      const whole = await client.rerun(rootId, { set: ['objective=write them again'] });
      expect(await client.rerunLinks(rootId)).toEqual({ rerun_of: null, reruns: [fork.rootId, whole.rootId].sort() });
      const wholeKeys = rerunKeys(cellOf(runtime, whole.rootId).prefix, whole.rootId);
      // A whole rerun without --replay replays nothing and reuses nothing; its edits are in its objective.
      expect(await db.redis.exists(wholeKeys.replay, wholeKeys.reuse)).toBe(0);
      const exported = await client.exportRun(whole.rootId);
      expect(exported.root).toMatchObject({ root_id: whole.rootId, rerun_of: rootId, objective: { objective: 'write them again', constraints: ['be brief'] } });
    } finally {
      await client.close();
    }
  });

  it('export a run, and rerun it from the file on a deployment that never saw it', async () => {
    const first = resolveRuntimeOptions({ redisUrl: db.server.url, prefix: uniquePrefix('export') });
    const client = new TierflowClient(first);
    let exported: unknown;
    let rootId: string;
    try {
      ({ rootId } = await recordedRun(client, first));
      exported = JSON.parse(JSON.stringify(await client.exportRun(rootId)));
    } finally {
      await client.close();
    }
    const read = readRunExport(exported);
    if (!read.ok) throw new Error(read.problem);
    expect(read.run.entries).toHaveLength(6);
    expect(read.run.root).toMatchObject({ root_id: rootId, objective: OBJECTIVE });

    const other = resolveRuntimeOptions({ redisUrl: db.server.url, prefix: uniquePrefix('import') });
    const importer = new TierflowClient(other);
    try {
      const rerun = await importer.rerun(read.run, { replay: 'strict' });
      const keys = rerunKeys(other.prefix, rerun.rootId);
      expect(await db.redis.hlen(keys.replay)).toBe(3);
      expect(await importer.rerunLinks(rerun.rootId)).toEqual({ rerun_of: rootId, reruns: [] });
      // The original is not on this deployment: nothing links it here.
      expect(await db.redis.exists(rerunKeys(other.prefix, rootId).reruns)).toBe(0);
    } finally {
      await importer.close();
    }
  });

  it('refuses an unknown run, a bad edit and an edit that leaves the objective invalid, writing nothing', async () => {
    const runtime = resolveRuntimeOptions({ redisUrl: db.server.url, prefix: uniquePrefix('refused') });
    const client = new TierflowClient(runtime);
    try {
      await expect(client.rerun('no-such-run')).rejects.toMatchObject({ code: 'root_not_found' });
      const { rootId } = await recordedRun(client, runtime);
      await expect(client.rerun(rootId, { set: ['objective.text=x'] })).rejects.toMatchObject({ code: 'invalid_argument' });
      await expect(client.rerun(rootId, { set: ['objective=42'] })).rejects.toMatchObject({ code: 'invalid_objective' });
      expect(await db.redis.keys(`${runtime.prefix}:rerun*`)).toEqual([]);
      expect(await client.exportRun('no-such-run').catch((error: unknown) => error)).toMatchObject({ code: 'root_not_found' });
    } finally {
      await client.close();
    }
  });
});
