import { OUTCOME_STATUSES } from '@tierflow/protocol';
import type { Job, JobType, Queue } from 'bullmq';
import { z } from 'zod';
import { INPUT_REQUIRED } from '../questions/run-questions.js';
import type { SigningConfig } from '../security/signing-keys.js';
import { asRootOutcome } from './root-outcome.js';

/** One root in `tierflow runs`: where it is, and how long it has taken. */
export interface RunSummary {
  readonly root_id: string;
  /**
   * The outcome's status once it has one; `running` while its tiers work, `waiting` before,
   * `input_required` while it waits for a person's answers, `failed` for a root job that failed outright.
   */
  readonly status: string;
  /** The objective, cut to 80 characters. */
  readonly objective: string;
  readonly submitted_at: string;
  readonly finished_at: string | null;
  /** Finished: how long it took from its submission; running: how long so far. */
  readonly duration_ms: number | null;
}

/** What `runs` can be asked for: an outcome status, or where unfinished runs are. */
export interface RunListOptions {
  readonly status?: string;
  /** 20 unless told; 1,000 at most. */
  readonly limit?: number;
}

/** Every status a run can be listed under, and so every status `runs` can be asked for. */
export const RUN_STATUSES: readonly string[] = ['running', 'waiting', INPUT_REQUIRED, ...OUTCOME_STATUSES];

const RUNNING: readonly JobType[] = ['active', 'waiting-children'];
const WAITING: readonly JobType[] = ['waiting', 'delayed', 'prioritized'];
const FINISHED: readonly JobType[] = ['completed', 'failed'];

/** Where to look for runs of a status: running and waiting ones in their queue states; the others among finished jobs. Pure. */
export function statesFor(status: string | undefined): readonly JobType[] {
  if (status === undefined) return [...RUNNING, ...WAITING, ...FINISHED];
  if (status === 'running') return RUNNING;
  if (status === 'waiting') return WAITING;
  // A root waits for answers in BullMQ's delayed set.
  if (status === INPUT_REQUIRED) return ['delayed'];
  return FINISHED;
}

const rootDataSchema = z.looseObject({ objective: z.looseObject({ objective: z.string() }) });

/**
 * A Monitor job as a run, read without trusting it: a job whose data does not parse still shows,
 * with what can be read, and a finished run's status is its own outcome's (readRootOutcome: that
 * run's, signed by the Monitor where the deployment signs), else `failed`. Pure.
 */
export function runSummary(job: Pick<Job, 'id' | 'data' | 'timestamp' | 'processedOn' | 'finishedOn' | 'returnvalue'>, state: JobType, now: number, signing: SigningConfig | null = null): RunSummary {
  const data = rootDataSchema.safeParse(job.data);
  const objective = data.success ? data.data.objective.objective : '(unreadable)';
  const returned = state === 'completed' ? asRootOutcome(job.returnvalue, job.id ?? '', signing) : null;
  const status = returned ? returned.payload.status : RUNNING.includes(state) ? 'running' : WAITING.includes(state) ? 'waiting' : 'failed';
  const finished = job.finishedOn ?? null;
  // From its submission: BullMQ moves processedOn to each pass of the root, so a finished run would seem to have taken only its last.
  const started = Number.isFinite(job.timestamp) ? job.timestamp : (job.processedOn ?? null);
  return {
    root_id: job.id ?? '',
    status,
    objective: objective.length > 80 ? `${objective.slice(0, 79)}…` : objective,
    submitted_at: new Date(job.timestamp).toISOString(),
    finished_at: finished === null ? null : new Date(finished).toISOString(),
    duration_ms: started === null ? null : (finished ?? now) - started,
  };
}

/** What listing a cell's runs needs besides its Monitor queue. */
export interface RunListing {
  readonly options: RunListOptions;
  readonly now: number;
  /** Which of these roots wait for a person's answers. */
  readonly waitingForAnswers: (rootIds: readonly string[]) => Promise<ReadonlySet<string>>;
  /** The deployment's signing, whose Monitor signature a finished run's outcome must carry. */
  readonly signing: SigningConfig | null;
}

/**
 * The most recent runs (latest first) from the Monitor's queue: those running or waiting, and
 * the finished ones still retained (TIERFLOW_KEEP_FINISHED_MS).
 */
export async function listRuns(monitor: Queue, { options, now, waitingForAnswers, signing }: RunListing): Promise<RunSummary[]> {
  const limit = runLimit(options);
  // With a status to match among finished runs, look further back than the limit.
  const reach = options.status === undefined || options.status === 'running' || options.status === 'waiting' ? limit : limit * 10;
  const states = statesFor(options.status);
  const found = await Promise.all(states.map(async (state) => (await monitor.getJobs([state], 0, reach - 1, false)).map((job) => runSummary(job, state, now, signing))));
  // A delayed root is a retry's back-off, or a run waiting for a person.
  const delayed = states.includes('delayed') ? found[states.indexOf('delayed')]! : [];
  const asking = await waitingForAnswers(delayed.map((run) => run.root_id));
  return latestRuns(
    found.flat().map((run) => (asking.has(run.root_id) ? { ...run, status: INPUT_REQUIRED } : run)),
    options,
  );
}

/** The runs of `options.status` (all without one), latest first, at most `options.limit`: from one cell's list or several. Pure. */
export function latestRuns(runs: readonly RunSummary[], options: RunListOptions): RunSummary[] {
  return runs
    .filter((run) => options.status === undefined || run.status === options.status)
    .sort((a, b) => b.submitted_at.localeCompare(a.submitted_at))
    .slice(0, runLimit(options));
}

function runLimit(options: RunListOptions): number {
  return Math.min(Math.max(1, options.limit ?? 20), 1_000);
}
