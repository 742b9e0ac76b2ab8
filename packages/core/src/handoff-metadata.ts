import { MAX_HANDOFF_NOTES, type HandoffMetadata } from '@tierflow/protocol';

/** The metadata an aggregate carries of its children's: only what they combine into. */
export type AggregatedMetadata = Pick<HandoffMetadata, 'sources_count' | 'data_freshness' | 'gaps' | 'assumptions'>;

/**
 * What an aggregate says of the work behind it (docs/protocol.md#handoff-metadata), from its own
 * metadata and its children's, own first:
 *
 * | Field            | Aggregate                                                             |
 * | ---------------- | --------------------------------------------------------------------- |
 * | `sources_count`  | the sum over everyone that gives one                                  |
 * | `gaps`           | the union, first seen first, without repeats, at most MAX_HANDOFF_NOTES |
 * | `assumptions`    | the same                                                              |
 * | `data_freshness` | the oldest given: work is only as fresh as its stalest input          |
 *
 * A field nobody gives stays absent, so work without metadata aggregates to none. `format` is not
 * combined: the aggregate's shape is its own. Pure.
 */
export function aggregateMetadata(own: AggregatedMetadata, children: readonly AggregatedMetadata[]): AggregatedMetadata {
  const all = [own, ...children];
  const counts = all.map((one) => one.sources_count).filter((count): count is number => count !== undefined);
  const gaps = unionOf(all.map((one) => one.gaps));
  const assumptions = unionOf(all.map((one) => one.assumptions));
  const freshness = oldest(all.map((one) => one.data_freshness));
  return {
    ...(counts.length > 0 ? { sources_count: counts.reduce((sum, count) => sum + count, 0) } : {}),
    ...(freshness === undefined ? {} : { data_freshness: freshness }),
    ...(gaps === undefined ? {} : { gaps }),
    ...(assumptions === undefined ? {} : { assumptions }),
  };
}

function unionOf(lists: readonly (readonly string[] | undefined)[]): string[] | undefined {
  if (lists.every((list) => list === undefined)) return undefined;
  const seen = new Set<string>();
  for (const list of lists) {
    for (const note of list ?? []) {
      if (seen.size >= MAX_HANDOFF_NOTES) return [...seen];
      seen.add(note);
    }
  }
  return [...seen];
}

/** The oldest of ISO 8601 dates and date-times (a bare date counts from its UTC midnight), as it was written. */
function oldest(stamps: readonly (string | undefined)[]): string | undefined {
  let found: { stamp: string; at: number } | undefined;
  for (const stamp of stamps) {
    if (stamp === undefined) continue;
    const at = Date.parse(stamp);
    if (Number.isNaN(at)) continue;
    if (found === undefined || at < found.at) found = { stamp, at };
  }
  return found?.stamp;
}
