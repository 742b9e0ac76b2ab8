import { uniquePrefix } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { appendAuditNow, type AuditEntry } from './audit-entry.js';
import { auditKey } from '../redis/keys.js';
import { readRunTree } from './run-tree.js';

// What `tierflow status` reads back from Redis may be anything: a bad record shows as such, never crashes the read.
const db = usePrivateRedis();

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
  detail: 'general',
});

describe('readRunTree', () => {
  it('shows a job whose record does not parse, or is not a hash, as unreadable, and skips trail entries out of shape', async () => {
    const { redis } = db;
    const prefix = uniquePrefix('run-tree');
    const monitor = new Queue('monitor', { connection: redis, prefix });
    try {
      await monitor.add('root', { kind: 'root' }, { jobId: 'r' });
    } finally {
      await monitor.close();
    }
    const key = auditKey(prefix, 'r');
    await appendAuditNow(redis, key, [sent('r.0-0', 'ABSTRACT_ARCHITECT'), sent('r.0-0.0-0', 'ROUTING_DISPATCHER')], null);
    await redis.xadd(key, '*', 'kind', 'outcome', 'direction', 'received', 'id', 'r.0-0.out', 'status', 'success', 'confidence', 'lots');
    await redis.xadd(key, '*', 'garbage', '\u0000\uffff');
    // An Architect job whose data is not JSON, and a Dispatcher "job" that is a string.
    await redis.hset(`${prefix}:architect:r.0-0`, { name: 'x', data: '{not json', opts: '{}', timestamp: '1' });
    await redis.set(`${prefix}:dispatcher:r.0-0.0-0`, 'not a hash');

    const tree = await readRunTree(redis, prefix, 'r');
    expect(tree).toMatchObject({ id: 'r', status: 'queued', source: 'queue', queue_state: 'waiting' });
    expect(tree!.children).toMatchObject([{ id: 'r.0-0', status: 'unreadable', source: 'queue', children: [{ id: 'r.0-0.0-0', status: 'unreadable', source: 'queue' }] }]);
  });

  it('reads a root from its job alone where its audit key holds something else than a stream', async () => {
    const { redis } = db;
    const prefix = uniquePrefix('run-tree');
    const monitor = new Queue('monitor', { connection: redis, prefix });
    try {
      await monitor.add('root', { kind: 'root' }, { jobId: 'r' });
    } finally {
      await monitor.close();
    }
    await redis.set(auditKey(prefix, 'r'), 'not a stream');
    expect(await readRunTree(redis, prefix, 'r')).toMatchObject({ id: 'r', status: 'queued', children: [] });
    expect(await readRunTree(redis, prefix, 'unknown')).toBeNull();
  });
});
