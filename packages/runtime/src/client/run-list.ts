import type { Job, JobType, Queue } from 'bullmq';
import { z } from 'zod';
import { queueStatesOf, runStatus, UNFINISHED_STATUSES, type RunStatus } from '../status/run-status.js';
import type { SigningConfig } from '../security/signing-keys.js';
import { asRootOutcome } from './root-outcome.js';
import type { RunFilter } from '../run-index/run-filter.js';

/** One root in `tierflow runs`: where it is, and how long it has taken. */
export interface RunSummary {
  readonly root_id: string;
  /**
   * A word of the status vocabulary (docs/statuses.md): the outcome's status once it has one;
   * `queued`, `running`, `waiting_for_children`, `retrying` or `input_required` before;
   * `failed` for a root job that ended without an outcome of its own.
   */
  readonly status: RunStatus;
  /** For debugging: BullMQ's state of the root job (`prioritized`, `waiting-children`, …). */
  readonly queue_state: string;
  /** The objective, cut to 80 characters. */
  readonly objective: string;
  readonly submitted_at: string;
  readonly finished_at: string | null;
  /** Finished: how long it took from its submission; running: how long so far. */
  readonly duration_ms: number | null;
  /** Tokens in and out of every model call of the run so far (its budget's count); 0 for a run without any. */
  readonly tokens: number;
  /** What those calls cost, in USD. */
  readonly cost_usd: number;
}

/** What `runs` can be asked for: a filter (docs/operations.md#finding-runs), how many, and where to go on from. */
export interface RunListOptions extends RunFilter {
  /** 20 unless told; 1,000 at most. */
  readonly limit?: number;
  /** The `next_cursor` of the page before. */
  readonly cursor?: string;
}

/** A page of runs, and the cursor of the next one (null when nothing further matches). */
export interface RunPage {
  readonly runs: RunSummary[];
  readonly next_cursor: string | null;
}

/** The Monitor queue's states a run can be listed from. */
const LISTED: readonly JobType[] = ['waiting', 'prioritized', 'delayed', 'active', 'waiting-children', 'completed', 'failed'];

/** Where to look for runs of a status: the queue states that status comes from (docs/statuses.md). Pure. */
export function statesFor(status: RunStatus | undefined): readonly JobType[] {
  if (status === undefined) return LISTED;
  const states = queueStatesOf(status);
  return LISTED.filter((state) => states.includes(state));
}

const rootDataSchema = z.looseObject({ objective: z.looseObject({ objective: z.string() }) });

/**
 * A Monitor job as a run, read without trusting it: a job whose data does not parse still shows,
 * with what can be read, and a finished run's status is its own outcome's (readRootOutcome: that
 * run's, signed by the Monitor where the deployment signs), else `failed`. Pure.
 */
export function runSummary(job: Pick<Job, 'id' | 'data' | 'timestamp' | 'processedOn' | 'finishedOn' | 'returnvalue'>, state: JobType, now: number, signing: SigningConfig | null = null): QueuedRun {
  const data = rootDataSchema.safeParse(job.data);
  const objective = data.success ? data.data.objective.objective : '(unreadable)';
  const returned = state === 'completed' ? asRootOutcome(job.returnvalue, job.id ?? '', signing) : null;
  const status = runStatus({ queueState: state, outcome: returned?.payload.status ?? null });
  const finished = job.finishedOn ?? null;
  // From its submission: BullMQ moves processedOn to each pass of the root, so a finished run would seem to have taken only its last.
  const started = Number.isFinite(job.timestamp) ? job.timestamp : (job.processedOn ?? null);
  return {
    root_id: job.id ?? '',
    status,
    queue_state: state,
    objective: shortObjective(objective),
    submitted_at: new Date(job.timestamp).toISOString(),
    finished_at: finished === null ? null : new Date(finished).toISOString(),
    duration_ms: started === null ? null : (finished ?? now) - started,
  };
}

/** A run as its root job tells it: all but what its budget counts. */
export type QueuedRun = Omit<RunSummary, 'tokens' | 'cost_usd'>;

/** An objective as a listing shows it: cut to 80 characters. Pure. */
export function shortObjective(objective: string): string {
  return objective.length > 80 ? `${objective.slice(0, 79)}…` : objective;
}

/** What listing a cell's runs needs besides its Monitor queue. */
export interface RunListing {
  readonly options: RunListOptions;
  readonly now: number;
  /** Which of these roots wait, and on what: a person's answers (`input_required`) or blocked work (`blocked`). */
  readonly waitingForAnswers: (rootIds: readonly string[]) => Promise<ReadonlyMap<string, RunStatus>>;
  /** The deployment's signing, whose Monitor signature a finished run's outcome must carry. */
  readonly signing: SigningConfig | null;
}

/**
 * The most recent runs (latest first) from the Monitor's queue: those running or waiting, and
 * the finished ones still retained (TIERFLOW_KEEP_FINISHED_MS).
 */
export async function listRuns(monitor: Queue, { options, now, waitingForAnswers, signing }: RunListing): Promise<QueuedRun[]> {
  const limit = runLimit(options);
  // With a status to match among finished runs, look further back than the limit.
  const reach = options.status === undefined || UNFINISHED_STATUSES.has(options.status) ? limit : limit * 10;
  const states = statesFor(options.status);
  const found = await Promise.all(states.map(async (state) => (await monitor.getJobs([state], 0, reach - 1, false)).map((job) => runSummary(job, state, now, signing))));
  // A delayed root is a retry's back-off, or a run waiting for a person or on blocked work.
  const delayed = states.includes('delayed') ? found[states.indexOf('delayed')]! : [];
  const waits = await waitingForAnswers(delayed.map((run) => run.root_id));
  return latestRuns(
    found.flat().map((run) => {
      const wait = waits.get(run.root_id);
      return wait ? { ...run, status: runStatus({ queueState: run.queue_state, outcome: null, waitsForPerson: wait === 'input_required', blocked: wait === 'blocked' }) } : run;
    }),
    options,
  );
}

/** The runs of `options.status` (all without one), latest first, at most `options.limit`: from one cell's list or several. Pure. */
export function latestRuns<T extends Pick<RunSummary, 'status' | 'submitted_at'>>(runs: readonly T[], options: RunListOptions): T[] {
  return runs
    .filter((run) => options.status === undefined || run.status === options.status)
    .sort((a, b) => b.submitted_at.localeCompare(a.submitted_at))
    .slice(0, runLimit(options));
}

/**
 * The status of roots that have not answered, from their jobs (a root with no job is left out):
 * what the run index cannot know until the Monitor answers.
 */
export async function liveStatuses(
  monitor: Queue,
  rootIds: readonly string[],
  { now, waitingForAnswers, signing }: Omit<RunListing, 'options'>,
): Promise<Map<string, { status: RunStatus; queueState: string }>> {
  const read = await Promise.all(
    rootIds.map(async (id) => {
      const state = await monitor.getJobState(id);
      if (state === 'unknown') return null;
      // A finished root without an outcome in the index: its job says whether it has one (an older Monitor's), else it failed.
      const job = state === 'completed' ? await monitor.getJob(id) : null;
      const status = job ? runSummary(job, state, now, signing).status : runStatus({ queueState: state, outcome: null });
      return { id, state, status };
    }),
  );
  const known = read.filter((entry) => entry !== null);
  const waits = await waitingForAnswers(known.filter((entry) => entry.state === 'delayed').map((entry) => entry.id));
  return new Map(known.map(({ id, state, status }) => [id, { status: waits.get(id) ?? status, queueState: state }]));
}

/** How many runs a page holds: 20 unless told, 1 to 1,000. */
export function runLimit(options: RunListOptions): number {
  return Math.min(Math.max(1, options.limit ?? 20), 1_000);
}
