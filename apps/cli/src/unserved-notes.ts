import { setTimeout as sleep } from 'node:timers/promises';
import { unservedNotice } from '@tierflow/runtime/admin';
import { type RunNode, type TierflowClient } from '@tierflow/runtime';

/** How long a view lets a run sit before it asks whether a worker serves it (a worker starting alongside has beaten by then), and how often it asks again. */
export const UNSERVED_CHECK_MS = 2_000;

/**
 * What a view says of a run that nothing serves: a line for each tier it waits on with no live
 * worker (`no monitor worker is running: …`), from the heartbeats, read at most every
 * {@link UNSERVED_CHECK_MS}: a queue nobody reads otherwise looks like a slow run.
 */
export class UnservedNotes {
  private checkedAt: number;
  private current: readonly string[] = [];
  private readonly said = new Set<string>();

  constructor(
    private readonly client: Pick<TierflowClient, 'unservedTiers'>,
    private readonly now: () => number = Date.now,
  ) {
    this.checkedAt = now();
  }

  /** The notes in force for `tree` (for a view drawn in place), and those not given before (for a view of lines). */
  async update(tree: RunNode): Promise<{ readonly current: readonly string[]; readonly fresh: readonly string[] }> {
    if (this.now() - this.checkedAt >= UNSERVED_CHECK_MS) {
      this.checkedAt = this.now();
      // A failed read says nothing new: the view itself reports a Redis that is gone.
      this.current = (await this.client.unservedTiers(tree).catch(() => [])).map(unservedNotice);
    }
    const fresh = this.current.filter((note) => !this.said.has(note));
    for (const note of fresh) this.said.add(note);
    return { current: this.current, fresh };
  }
}

/** Until `signal` aborts, reads the run's tree every {@link UNSERVED_CHECK_MS} and gives each new note to `say`. */
export async function sayUnserved(client: Pick<TierflowClient, 'tree' | 'unservedTiers'>, rootId: string, say: (note: string) => void, signal: AbortSignal): Promise<void> {
  const notes = new UnservedNotes(client);
  while (!signal.aborted) {
    await sleep(UNSERVED_CHECK_MS, undefined, { signal }).catch(() => undefined);
    if (signal.aborted) return;
    const tree = await client.tree(rootId).catch(() => null);
    if (!tree) continue;
    const { fresh } = await notes.update(tree);
    if (!signal.aborted) fresh.forEach(say);
  }
}
