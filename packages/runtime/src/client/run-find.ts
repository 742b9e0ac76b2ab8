import type { Queue } from 'bullmq';
import type { RedisClient } from '@tierflow/beads';
import type { RuntimeOptions } from '../config/options.js';
import { controlKeys } from '../redis/keys.js';
import { UNFINISHED_STATUSES, type RunStatus } from '../status/run-status.js';
import { decodeCursor, encodeCursor, mergePages, type CellPage, type RunPosition } from '../run-index/run-cursor.js';
import { filtersBeyondStatus } from '../run-index/run-filter.js';
import { readIndexPage, readSpending, type FoundRun } from '../run-index/run-index.js';
import { latestRuns, listRuns, liveStatuses, runLimit, shortObjective, type RunListOptions, type RunPage, type RunSummary } from './run-list.js';

/** One cell as finding runs uses it. */
export interface FindCell {
  readonly runtime: RuntimeOptions;
  readonly monitor: Queue;
}

/** What finding runs needs besides the cells. */
export interface FindDeps {
  readonly redis: RedisClient;
  readonly now: number;
  /** Which of these roots (of the cell with this prefix) wait, and on what (`input_required` or `blocked`). */
  readonly waitingForAnswers: (prefix: string, rootIds: readonly string[]) => Promise<ReadonlyMap<string, RunStatus>>;
}

type Listed = RunPosition & { readonly summary: RunSummary };

/**
 * A page of runs of every cell, latest first, that pass the filter: each cell's from its run index
 * (run-index/), merged into one page and a cursor that goes on in all of them. A cell whose index
 * holds nothing yet (a deployment upgraded from before it) is listed from its Monitor queue, as
 * before the index, when nothing but the status is asked.
 */
export async function findRuns(cells: readonly FindCell[], query: RunListOptions, deps: FindDeps): Promise<RunPage> {
  const after = query.cursor === undefined ? null : decodeCursor(query.cursor);
  const limit = runLimit(query);
  const pages = await Promise.all(cells.map((cell) => findInCell(cell, query, after, limit, deps)));
  const { runs, next } = mergePages(pages, limit);
  return { runs: runs.map((run) => run.summary), next_cursor: next === null ? null : encodeCursor(next) };
}

async function findInCell({ runtime, monitor }: FindCell, query: RunListOptions, after: RunPosition | null, limit: number, deps: FindDeps): Promise<CellPage<Listed>> {
  const { redis, now } = deps;
  const keys = controlKeys(runtime.prefix);
  const waitingForAnswers = (ids: readonly string[]): Promise<ReadonlyMap<string, RunStatus>> => deps.waitingForAnswers(runtime.prefix, ids);
  const signing = runtime.signing;
  const page = await readIndexPage(redis, keys, {
    filter: query,
    after,
    limit,
    now,
    ttlMs: runtime.auditTtlMs,
    live: (ids) => liveStatuses(monitor, ids, { now, waitingForAnswers, signing }),
  });
  if (!page.empty || after !== null || filtersBeyondStatus(query))
    return { runs: page.runs.map((found) => ({ at: found.at, id: found.id, summary: indexedSummary(found, now) })), frontier: page.frontier };
  const listed = latestRuns(await listRuns(monitor, { options: query, now, waitingForAnswers, signing }), query);
  const spent = await readSpending(
    redis,
    keys,
    listed.map((run) => run.root_id),
  );
  return {
    runs: listed.map((run, index) => ({ at: Date.parse(run.submitted_at), id: run.root_id, summary: { ...run, ...spent[index]! } })),
    frontier: null,
  };
}

/** A run of the index as a listing shows it. Pure. */
export function indexedSummary({ run, status, queueState }: FoundRun, now: number): RunSummary {
  const finished = run.final?.finishedAt ?? null;
  return {
    root_id: run.rootId,
    status,
    queue_state: queueState,
    objective: shortObjective(run.objective ?? '(unknown: its record is past retention)'),
    submitted_at: new Date(run.submittedAt).toISOString(),
    finished_at: finished === null ? null : new Date(finished).toISOString(),
    // A run that never answered and has no job left has no duration to tell.
    duration_ms: finished !== null ? finished - run.submittedAt : UNFINISHED_STATUSES.has(status) ? now - run.submittedAt : null,
    tokens: run.tokens,
    cost_usd: run.costUsd,
  };
}
