import { escapeRedisGlob } from '@tierflow/beads';
import { TierflowError } from '@tierflow/protocol';
import { rootIdOf } from '../messages/ids.js';
import type { RuntimeOptions } from '../config/options.js';

/**
 * Cells: a deployment's runs spread over N hash tags, so that on a Redis Cluster they spread over
 * N slots and so over the shards (docs/operations.md#cells). A run's whole tree stays in the cell
 * of its root, as BullMQ's flows need; different runs need not share one. Everything a run writes
 * (queues, step state, audit trail, Beads, control records) is under its cell's prefix, so the
 * engine works on one cell as it always worked on one deployment. With one cell (the default)
 * the cell's prefix is the deployment's own, and nothing changes.
 */

/**
 * Cell `index`'s prefix: the deployment's hash tag with the cell's number inside it
 * (`{tierflow}` → `{tierflow:3}`), so each cell hashes to its own slot. With one cell, the prefix itself.
 */
export function cellPrefix(prefix: string, cells: number, index: number): string {
  return cells === 1 ? prefix : prefix.replace('}', `:${index}}`);
}

/**
 * A Redis glob matching every cell's prefix, and nothing of another deployment: the prefix
 * escaped, with `:*` in its hash tag when there are several cells (`{tierflow:*}`). One SCAN or
 * one ACL rule then covers every cell.
 */
export function cellsGlob(runtime: Pick<RuntimeOptions, 'prefix' | 'cells'>): string {
  const escaped = escapeRedisGlob(runtime.prefix);
  return runtime.cells === 1 ? escaped : escaped.replace('}', ':*}');
}

/** Every cell's prefix, in order. */
export function cellPrefixes(runtime: Pick<RuntimeOptions, 'prefix' | 'cells'>): string[] {
  return Array.from({ length: runtime.cells }, (_, index) => cellPrefix(runtime.prefix, runtime.cells, index));
}

/**
 * The cell of a root, from its id alone: FNV-1a (32 bits) of the id's UTF-8 bytes, modulo the
 * number of cells. Stable across processes, hosts and versions, so anyone holding an id finds its
 * run; changing the number of cells moves where new ids go (docs/operations.md#cells).
 */
export function cellOfRoot(rootId: string, cells: number): number {
  if (cells === 1) return 0;
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(rootId, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % cells;
}

/** The cell of any message of a run (a root, a delegation or an outcome id). */
export function cellOfMessage(messageId: string, cells: number): number {
  return cellOfRoot(rootIdOf(messageId), cells);
}

/**
 * The runtime options of one cell: the deployment's, with the cell's prefix. What works on a cell
 * (a worker, a lookup of a run) takes these and needs to know nothing of cells.
 */
export function inCell(runtime: RuntimeOptions, index: number): RuntimeOptions {
  return runtime.cells === 1 ? runtime : { ...runtime, prefix: cellPrefix(runtime.prefix, runtime.cells, index), cells: 1 };
}

/** The runtime options of the cell a message's run lives in. */
export function cellOf(runtime: RuntimeOptions, messageId: string): RuntimeOptions {
  return inCell(runtime, cellOfMessage(messageId, runtime.cells));
}

/**
 * The cells a worker serves, from a list such as `0,2` (`--cells`); every cell when none is given.
 *
 * @throws TierflowError (code `invalid_argument`) for an entry that is not a cell of the deployment.
 */
export function servedCells(list: string | undefined, cells: number): number[] {
  if (list === undefined || list.trim() === '') return Array.from({ length: cells }, (_, index) => index);
  const entries = list.split(',').map((entry) => entry.trim());
  const bad = entries.filter((entry) => !/^\d+$/.test(entry) || Number(entry) >= cells);
  if (bad.length > 0) {
    throw TierflowError.permanent(
      `cells ${JSON.stringify(list)}: ${bad.map((entry) => JSON.stringify(entry)).join(', ')} ${bad.length === 1 ? 'is' : 'are'} not a cell of this deployment (0 to ${cells - 1})`,
      {
        code: 'invalid_argument',
      },
    );
  }
  return [...new Set(entries.map(Number))].sort((a, b) => a - b);
}
