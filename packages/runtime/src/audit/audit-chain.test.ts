import { uniquePrefix } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { describe, expect, it } from 'vitest';
import { appendAudit, appendAuditNow, type AuditEntry } from './audit-entry.js';
import { chainHash, readAuditChain, streamCountsOf, verifyAuditChain, type ChainLink } from './audit-chain.js';
import { auditKey } from '../redis/keys.js';
import { FencedBatch } from '../redis/fenced-batch.js';
import { readAuditTrail } from './audit-read.js';

const db = usePrivateRedis();

const entry = (id: string): AuditEntry => ({
  time: '2026-11-29T10:00:00.000Z',
  from: 'ROUTING_DISPATCHER',
  to: 'SPECIALIZED_FLEET',
  kind: 'delegation',
  direction: 'sent',
  id,
  correlation_id: '',
  status: '',
  confidence: null,
  by: 'ROUTING_DISPATCHER',
  attempt: null,
  detail: 'execute ünïcode ✓',
});

/** Links chained as the append script chains them. */
function chained(ids: readonly string[]): ChainLink[] {
  let previous = '';
  return ids.map((id, i) => {
    const text = JSON.stringify(entry(id));
    previous = chainHash(previous, text);
    return { stream_id: `${i + 1}-0`, entry: text, hash: previous };
  });
}

describe('verifyAuditChain', () => {
  const counts = (length: number) => ({ length, entries_added: length, max_deleted_entry_id: '0-0' });

  it('finds an intact chain intact, and leaves entries written before chaining unchecked', () => {
    const links = chained(['a', 'b', 'c']);
    expect(verifyAuditChain(links, counts(3))).toEqual({ intact: true, entries: 3, before_chain: 0, problems: [] });
    const legacy: ChainLink = { stream_id: '0-1', entry: null, hash: null };
    expect(verifyAuditChain([legacy, ...links], counts(4))).toMatchObject({ intact: true, before_chain: 1 });
  });

  it('names an edited entry once, an entry added by hand, and entries removed', () => {
    const links = chained(['a', 'b', 'c']);
    const edited = [links[0]!, { ...links[1]!, entry: JSON.stringify(entry('B')) }, links[2]!];
    expect(verifyAuditChain(edited, counts(3)).problems).toEqual([{ kind: 'edited', stream_id: '2-0' }]);
    // The middle entry removed: the one after it no longer follows, and Redis counts one more added than held.
    const removed = [links[0]!, links[2]!];
    expect(verifyAuditChain(removed, { length: 2, entries_added: 3, max_deleted_entry_id: '2-0' }).problems).toEqual([
      { kind: 'edited', stream_id: '3-0' },
      { kind: 'removed', count: 1, last_removed: '2-0' },
    ]);
    const byHand = [...links, { stream_id: '4-0', entry: JSON.stringify(entry('d')), hash: null }];
    expect(verifyAuditChain(byHand, counts(4))).toMatchObject({ intact: false, problems: [{ kind: 'unchained', stream_id: '4-0' }] });
  });

  it('reads XINFO STREAM replies without trusting them', () => {
    expect(streamCountsOf(['length', 2, 'entries-added', 3, 'max-deleted-entry-id', '1-0'])).toEqual({ length: 2, entries_added: 3, max_deleted_entry_id: '1-0' });
    for (const junk of [null, 'x', ['length', '2'], {}]) expect(streamCountsOf(junk)).toBeNull();
  });
});

describe('the chain in Redis', () => {
  it('links entries appended by every path (script, MULTI, fenced batch) so that Node verifies them', async () => {
    const { redis } = db;
    const prefix = uniquePrefix('audit-chain');
    const key = auditKey(prefix, 'r');
    await appendAuditNow(redis, key, [entry('r'), entry('r.0-0')], 60_000);
    const multi = redis.multi();
    appendAudit(multi, key, [entry('r.0-0.0-0')], null);
    await multi.exec();
    const batch = new FencedBatch();
    appendAudit(batch, key, [entry('r.0-0.0-0.0-0'), entry('r.0-0.0-0.0-1')], 60_000);
    await redis.set(`${prefix}:lock`, 'token');
    await batch.commit(redis, `${prefix}:lock`, 'token', 'job');

    const trail = await readAuditChain(redis, prefix, 'r');
    expect(trail?.links).toHaveLength(5);
    expect(verifyAuditChain(trail!.links, trail!.counts)).toMatchObject({ intact: true, entries: 5, before_chain: 0 });
    expect((await readAuditTrail(redis, prefix, 'r')).map((record) => record.hash)).toEqual(trail!.links.map((link) => link.hash));
    expect(await redis.pttl(key)).toBeGreaterThan(0);

    // Removed in the middle: found twice over.
    await redis.xdel(key, trail!.links[2]!.stream_id);
    const after = await readAuditChain(redis, prefix, 'r');
    expect(verifyAuditChain(after!.links, after!.counts).problems).toEqual([
      { kind: 'edited', stream_id: trail!.links[3]!.stream_id },
      { kind: 'removed', count: 1, last_removed: trail!.links[2]!.stream_id },
    ]);
  });

  it('adds nothing to a trail that is not there when told so (a refusal naming a run that may not exist)', async () => {
    const { redis } = db;
    const key = auditKey(uniquePrefix('audit-chain'), 'nobody');
    await appendAuditNow(redis, key, [entry('x')], 60_000, false, true);
    expect(await redis.exists(key)).toBe(0);
  });
});
