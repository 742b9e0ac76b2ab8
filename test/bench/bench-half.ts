/** One side of the comparison: workers on a private Redis, and a way to run roots through them. */
export interface BenchHalf {
  /** The Redis servers that do its work (every master of a cluster), whose INFO counters are summed. */
  readonly redisUrls: readonly string[];
  readonly workerPids: readonly number[];
  /** Processes that do a broker's work in Redis's place (a Restate server): their CPU counts as the broker's. */
  readonly brokerPids?: readonly number[];
  /** Enqueues one root of the bench shape; returns its id. */
  enqueue(): Promise<string>;
  /** Resolves when the root has finished successfully; rejects otherwise or after `timeoutMs`. */
  finished(id: string, timeoutMs: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A half's `finished` for roots it tracks as promises by id: waits for root `id`'s promise, at
 * most `timeoutMs`, and forgets it either way.
 */
export async function awaitTracked(roots: Map<string, Promise<void>>, id: string, timeoutMs: number): Promise<void> {
  const root = roots.get(id);
  if (!root) throw new Error(`no root ${id}`);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for root ${id}`)), timeoutMs);
  });
  try {
    await Promise.race([root, timeout]);
  } finally {
    clearTimeout(timer);
    roots.delete(id);
  }
}
