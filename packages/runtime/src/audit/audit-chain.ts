import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { RedisClient } from '@tierflow/beads';
import { AUDIT_ENTRY_FIELD, AUDIT_HASH_FIELD } from '../redis/audit-append.js';
import { auditKey } from '../redis/keys.js';

/** One entry of a trail as stored: its JSON text and chain hash, null where it has none (written before chaining, or by hand). */
export interface ChainLink {
  readonly stream_id: string;
  readonly entry: string | null;
  readonly hash: string | null;
}

/** What Redis counts of a stream (XINFO STREAM): how many entries it holds, and how many were ever added to it. */
export interface StreamCounts {
  readonly length: number;
  readonly entries_added: number;
  /** The id of the last entry removed from it, `0-0` when none ever was. */
  readonly max_deleted_entry_id: string;
}

/**
 * `edited`: an entry whose hash does not follow from the one before: it was changed, or the entry
 * before it was removed; `unchained`: an entry without a hash among chained ones (added by hand);
 * `removed`: entries Redis counts as added that are gone (XDEL, XTRIM).
 */
export type ChainProblem =
  | { readonly kind: 'edited'; readonly stream_id: string }
  | { readonly kind: 'unchained'; readonly stream_id: string }
  | { readonly kind: 'removed'; readonly count: number; readonly last_removed: string };

export interface ChainReport {
  /** True when no problem was found. */
  readonly intact: boolean;
  readonly entries: number;
  /** Entries before the first chained one: written before trails were chained, so not checked. */
  readonly before_chain: number;
  readonly problems: readonly ChainProblem[];
}

/** The hash an entry is chained under (as redis/audit-append.ts computes it in Redis). */
export function chainHash(previous: string, entry: string): string {
  return createHash('sha1').update(`${previous}\n${entry}`).digest('hex');
}

/**
 * Checks a trail's chain, entry by entry, as the append script built it: each hash follows from
 * the previous entry's and its own JSON; an entry without one restarts the chain. Pure.
 */
export function verifyAuditChain(links: readonly ChainLink[], counts: StreamCounts | null): ChainReport {
  const problems: ChainProblem[] = [];
  let previous = '';
  let started = false;
  let beforeChain = 0;
  for (const link of links) {
    if (link.entry === null || link.hash === null) {
      if (started) problems.push({ kind: 'unchained', stream_id: link.stream_id });
      else beforeChain++;
      // As the append script does: the next entry chains to this one's hash, '' when it has none.
      previous = link.hash ?? '';
      continue;
    }
    started = true;
    if (chainHash(previous, link.entry) !== link.hash) problems.push({ kind: 'edited', stream_id: link.stream_id });
    // On from the stored hash, so one edited entry is reported once, not with every entry after it.
    previous = link.hash;
  }
  if (counts && counts.entries_added > links.length) problems.push({ kind: 'removed', count: counts.entries_added - links.length, last_removed: counts.max_deleted_entry_id });
  else if (counts && counts.max_deleted_entry_id !== '0-0') problems.push({ kind: 'removed', count: 0, last_removed: counts.max_deleted_entry_id });
  return { intact: problems.length === 0, entries: links.length, before_chain: beforeChain, problems };
}

const xinfoSchema = z.array(z.unknown()).transform((flat) => {
  const values = new Map<string, unknown>();
  for (let i = 0; i + 1 < flat.length; i += 2) if (typeof flat[i] === 'string') values.set(flat[i] as string, flat[i + 1]);
  return values;
});

/** Redis's counts of a stream, or null where it gives none (no such stream, or a reply out of shape). */
export function streamCountsOf(reply: unknown): StreamCounts | null {
  const parsed = xinfoSchema.safeParse(reply);
  if (!parsed.success) return null;
  const length = parsed.data.get('length');
  const added = parsed.data.get('entries-added');
  const deleted = parsed.data.get('max-deleted-entry-id');
  if (typeof length !== 'number' || typeof added !== 'number' || typeof deleted !== 'string') return null;
  return { length, entries_added: added, max_deleted_entry_id: deleted };
}

/** A run's trail as stored, and Redis's counts of it: what {@link verifyAuditChain} checks. Null for a run with no trail. */
export async function readAuditChain(redis: RedisClient, prefix: string, rootId: string): Promise<{ links: ChainLink[]; counts: StreamCounts | null } | null> {
  const key = auditKey(prefix, rootId);
  const [entries, info] = await Promise.all([redis.xrange(key, '-', '+'), redis.call('XINFO', 'STREAM', key).catch(() => null)]);
  if (entries.length === 0) return null;
  const links = entries.map(([streamId, fields]): ChainLink => {
    let entry: string | null = null;
    let hash: string | null = null;
    for (let i = 0; i + 1 < fields.length; i += 2) {
      if (fields[i] === AUDIT_ENTRY_FIELD) entry = fields[i + 1]!;
      else if (fields[i] === AUDIT_HASH_FIELD) hash = fields[i + 1]!;
    }
    return { stream_id: streamId, entry, hash };
  });
  return { links, counts: streamCountsOf(info) };
}
