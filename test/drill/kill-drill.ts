import type { TierSlug } from '@tierflow/protocol';
import { spawnTiers, type TierProcesses } from '@tierflow/cli';
import type { ObjectiveFile } from '@tierflow/runtime';
import { escapeRedisGlob, scanKeys } from '@tierflow/beads';
import { startRedisCluster, startRedisServer, uniquePrefix, waitFor } from '@tierflow/testing';
import { Queue, QueueEvents } from 'bullmq';
import { cellPrefixes, connect } from '@tierflow/runtime/admin';
import { runtimeOptionsFromEnv, TierflowClient } from '@tierflow/runtime';

export interface DrillOptions {
  readonly roots: number;
  readonly workersPerTier: number;
  /** A random worker is killed (SIGKILL) and replaced this often… */
  readonly killEveryMs: number;
  /** …for this long. */
  readonly killForMs: number;
  /** …and past that, until this many kills were made (a loaded machine's beat runs slow: kills are awaited). */
  readonly minKills?: number;
  readonly lockDurationMs: number;
  readonly stalledIntervalMs: number;
  /** On a Redis Cluster of this many masters, the runs spread over `cells` cells; one Redis server when left out. */
  readonly cluster?: { readonly masters: number; readonly cells: number };
}

export interface DrillReport {
  readonly roots: number;
  readonly finished: number;
  readonly statuses: Record<string, number>;
  readonly kills: number;
  readonly seconds: number;
  readonly duplicateExecutions: number;
  /** Jobs taken back from killed workers, and how long after the kill each was (ms, median and max). */
  readonly reclaimed: number;
  readonly reclaimMs: { readonly median: number; readonly max: number } | null;
  readonly leftActive: number;
  readonly leftWaitingChildren: number;
}

/** A worker still running {@link STOP_GRACE_MS} after SIGTERM: killed, and its last lines kept to say why. */
export interface SlowStop {
  readonly tier: TierSlug;
  readonly pid: number | undefined;
  readonly lastLines: readonly string[];
}

/** How long a worker may take to finish its running jobs and exit on SIGTERM before the drill kills it. */
const STOP_GRACE_MS = 15_000;

const TIERS: readonly TierSlug[] = ['monitor', 'architect', 'dispatcher', 'fleet'];

/** Random sim delays (0-200 ms), one subtask in ten failing once (transient), fan-out 3. */
function objective(): ObjectiveFile {
  const subtask = (index: number) => ({
    objective: `subtask ${index}`,
    task_data: { sim: { delay_ms: Math.floor(Math.random() * 200), ...(Math.random() < 0.1 ? { fail_times: 1 } : {}) } },
  });
  return { objective: 'drill', task_data: { plan: { strategy: 'all_success', subtasks: [1, 2, 3].map(subtask) } } };
}

/**
 * The kill drill: the four tiers with several workers each, many roots in flight, and a random
 * worker killed with SIGKILL (and replaced) at a steady beat. Every root must still reach a final
 * outcome, no message may be executed to completion twice, and no job may be left behind.
 */
export async function runDrill(options: DrillOptions): Promise<DrillReport> {
  const store = options.cluster ? await startRedisCluster({ masters: options.cluster.masters }) : await startRedisServer();
  const where = 'seedList' in store ? { REDIS_URL: store.nodes[0]!.url, TIERFLOW_REDIS_CLUSTER: store.seedList, TIERFLOW_CELLS: String(options.cluster!.cells) } : { REDIS_URL: store.url };
  const prefix = uniquePrefix('drill');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...where,
    TIERFLOW_PREFIX: prefix,
    TIERFLOW_LOG: 'silent',
    OTEL_TRACES_EXPORTER: 'none',
    TIERFLOW_TRACK_COMPLETIONS: '1',
    TIERFLOW_LOCK_DURATION_MS: String(options.lockDurationMs),
    TIERFLOW_STALLED_INTERVAL_MS: String(options.stalledIntervalMs),
    TIERFLOW_RETRY_BASE_MS: '50',
  };
  const workers: { tier: TierSlug; processes: TierProcesses; ready: boolean; lines: string[] }[] = [];
  const start = async (tier: TierSlug): Promise<void> => {
    const lines: string[] = [];
    const onLine = (_tier: TierSlug, line: string): void => {
      worker.ready ||= line.includes('worker ready');
      lines.push(line);
      if (lines.length > 20) lines.shift();
    };
    const worker = { tier, processes: spawnTiers(env, onLine, [tier]), ready: false, lines };
    workers.push(worker);
    await waitFor(() => worker.ready, { timeoutMs: 30_000, description: `a ${tier} worker` });
  };
  const runtime = runtimeOptionsFromEnv(env);
  const cells = cellPrefixes(runtime);
  const client = new TierflowClient(runtime);
  const reader = connect(runtime);
  // BullMQ announces each job it takes back from a dead worker ('stalled'): the time since that tier's last kill is the reclaim time.
  const killedAt = new Map<TierSlug, number>();
  const reclaims: number[] = [];
  const queues = cells.flatMap((cell) => TIERS.map((tier) => ({ cell, tier })));
  const eventConnections = queues.map(() => connect(runtime));
  const events = queues.map(({ cell, tier }, index) => {
    const queueEvents = new QueueEvents(tier, { connection: eventConnections[index]!, prefix: cell });
    queueEvents.on('stalled', () => {
      const at = killedAt.get(tier);
      if (at !== undefined) reclaims.push(Date.now() - at);
    });
    return queueEvents;
  });
  try {
    await Promise.all(events.map((queueEvents) => queueEvents.waitUntilReady()));
    for (const tier of TIERS) for (let i = 0; i < options.workersPerTier; i++) await start(tier);
    const started = performance.now();
    const ids = await Promise.all(Array.from({ length: options.roots }, () => client.enqueue(objective())));
    const outcomes = Promise.all(ids.map((id) => client.waitForResult(id, { timeoutMs: 300_000 })));

    let kills = 0;
    const replacements: Promise<void>[] = [];
    const killUntil = Date.now() + options.killForMs;
    // A bound on the catching up, so a drill whose workers never come up still ends (and fails on its kill count).
    const catchUpUntil = killUntil + 10 * options.killForMs;
    const wantMore = () => (Date.now() < killUntil || kills < (options.minKills ?? 0)) && Date.now() < catchUpUntil;
    while (wantMore()) {
      await new Promise((resolve) => setTimeout(resolve, options.killEveryMs)); // the drill's beat, not a synchronisation
      // Only workers that are up and taking jobs: killing one while it starts proves nothing.
      const alive = workers.filter((worker) => worker.ready && worker.processes.children.get(worker.tier)?.exitCode === null);
      const victim = alive[Math.floor(Math.random() * alive.length)];
      if (!victim) continue;
      victim.processes.children.get(victim.tier)!.kill('SIGKILL');
      killedAt.set(victim.tier, Date.now());
      await victim.processes.exited;
      kills++;
      // The replacement starts while the beat goes on, as a supervisor would restart it.
      replacements.push(start(victim.tier));
    }
    await Promise.all(replacements);

    const results = await outcomes;
    const seconds = (performance.now() - started) / 1000;
    const statuses: Record<string, number> = {};
    for (const outcome of results) statuses[outcome.payload.status] = (statuses[outcome.payload.status] ?? 0) + 1;
    let duplicates = 0;
    for (const cell of cells) duplicates += (await scanKeys(reader, `${escapeRedisGlob(cell)}:beads:execution/duplicates/*`)).length;
    let leftActive = 0;
    let leftWaitingChildren = 0;
    for (const { cell, tier } of queues) {
      const queue = new Queue(tier, { connection: reader, prefix: cell });
      const counts = await queue.getJobCounts('active', 'waiting-children');
      leftActive += counts.active ?? 0;
      leftWaitingChildren += counts['waiting-children'] ?? 0;
      await queue.close();
    }
    reclaims.sort((a, b) => a - b);
    const reclaimMs = reclaims.length === 0 ? null : { median: reclaims[Math.floor(reclaims.length / 2)]!, max: reclaims.at(-1)! };
    return { roots: options.roots, finished: results.length, statuses, kills, seconds, duplicateExecutions: duplicates, reclaimed: reclaims.length, reclaimMs, leftActive, leftWaitingChildren };
  } finally {
    await Promise.all(events.map((queueEvents) => queueEvents.close()));
    for (const connection of eventConnections) connection.disconnect();
    await client.close();
    reader.disconnect();
    const slow = await stopWithin(workers);
    // A worker that will not stop is a fault of its own, not of the drill's claims: said, not hidden.
    for (const stop of slow) console.warn(`kill drill: a ${stop.tier} worker (pid ${stop.pid}) was still running ${STOP_GRACE_MS} ms after SIGTERM; its last lines:\n${stop.lastLines.join('\n')}`);
    await store.stop();
  }
}

/** SIGTERM to every worker, then SIGKILL to those still running after {@link STOP_GRACE_MS}: which those were. */
async function stopWithin(workers: readonly { tier: TierSlug; processes: TierProcesses; lines: string[] }[]): Promise<SlowStop[]> {
  const slow: SlowStop[] = [];
  await Promise.all(
    workers.map(async (worker) => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), STOP_GRACE_MS)));
      const stopped = worker.processes.stop();
      if ((await Promise.race([stopped, late])) === 'late') {
        const child = worker.processes.children.get(worker.tier);
        slow.push({ tier: worker.tier, pid: child?.pid, lastLines: [...worker.lines] });
        child?.kill('SIGKILL');
      }
      clearTimeout(timer);
      await stopped;
    }),
  );
  return slow;
}
