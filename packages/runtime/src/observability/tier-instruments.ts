import { metrics, type Counter, type Histogram, type Meter, type MeterProvider, type ObservableResult } from '@opentelemetry/api';

/**
 * The tiers' metric instruments (docs/operations.md#metrics), through `@opentelemetry/api` only:
 * a process without a meter provider records nothing and pays a lookup per record. The API has
 * no proxy provider (an instrument made from the no-op provider stays a no-op once the SDK
 * registers), so instruments are made on first use and made again whenever the global provider
 * has changed; never as this module loads.
 */
export const METER_NAME = '@tierflow/runtime';

/**
 * Bucket boundaries, in seconds, of a hop's time: a Dispatcher routes in milliseconds, a
 * specialist calling a model takes seconds, a slow one minutes.
 */
export const HOP_BUCKETS_S: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600];
/** Of a whole run: from a fraction of a second (the simulated specialists) to an hour. */
export const RUN_BUCKETS_S: readonly number[] = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 1800, 3600];
/** Of a person's answer: seconds to the longest wait allowed (6 days). */
export const QUESTION_WAIT_BUCKETS_S: readonly number[] = [1, 5, 15, 60, 300, 900, 3600, 4 * 3600, 12 * 3600, 24 * 3600, 3 * 24 * 3600, 6 * 24 * 3600];

/** Names, units and meanings: the one place an instrument is described. */
export const TIER_METRICS = {
  runsFinished: { name: 'tierflow.runs.finished', unit: '{run}', description: 'Runs that ended, by the status of their final outcome' },
  runDuration: { name: 'tierflow.run.duration', unit: 's', description: 'From a root objective being enqueued to its final outcome', buckets: RUN_BUCKETS_S },
  hopDuration: { name: 'tierflow.hop.duration', unit: 's', description: "One pass of a tier over a job: from taking it up to the pass's end, by how it ended", buckets: HOP_BUCKETS_S },
  hopQueued: { name: 'tierflow.hop.queued', unit: 's', description: 'How long a delegation waited in its queue before its tier took it up', buckets: HOP_BUCKETS_S },
  retries: { name: 'tierflow.retries', unit: '{retry}', description: 'Passes that ended to be tried again after a transient error' },
  escalations: { name: 'tierflow.escalations', unit: '{escalation}', description: 'Failures from below a tier acted on: re-routed, revised, or started afresh' },
  revisions: { name: 'tierflow.revisions', unit: '{revision}', description: "The Architect's revisions of a strategy that fell short" },
  questions: { name: 'tierflow.questions', unit: '{question}', description: 'Questions put to a person' },
  questionWait: { name: 'tierflow.question.wait', unit: 's', description: 'From questions being asked to all of them answered, or the wait ending', buckets: QUESTION_WAIT_BUCKETS_S },
  budgetStops: { name: 'tierflow.budget.stops', unit: '{run}', description: 'Runs stopped for going over their budget, by the limit they passed' },
  deadLetters: { name: 'tierflow.dead_letters', unit: '{job}', description: 'Jobs refused for good and kept in the dead-letter queue' },
  securityFindings: { name: 'tierflow.security.findings', unit: '{finding}', description: 'Security findings in outcomes a tier sent, such as an agent hash mismatch' },
  jobsRunning: { name: 'tierflow.worker.jobs.running', unit: '{job}', description: 'Jobs this worker process runs now' },
} as const;

export interface TierInstruments {
  readonly runsFinished: Counter;
  readonly runDuration: Histogram;
  readonly hopDuration: Histogram;
  readonly hopQueued: Histogram;
  readonly retries: Counter;
  readonly escalations: Counter;
  readonly revisions: Counter;
  readonly questions: Counter;
  readonly questionWait: Histogram;
  readonly budgetStops: Counter;
  readonly deadLetters: Counter;
  readonly securityFindings: Counter;
}

/** What the running-jobs gauge reads: each worker of this process, by tier slug. */
const runningSources = new Set<{ readonly tier: string; readonly running: () => number }>();

let made: { readonly provider: MeterProvider; readonly instruments: TierInstruments } | null = null;

/** The instruments of the global meter provider now: made on first use, and again for a new provider. */
export function tierInstruments(): TierInstruments {
  const provider = metrics.getMeterProvider();
  if (made?.provider !== provider) made = { provider, instruments: makeInstruments(provider.getMeter(METER_NAME)) };
  return made.instruments;
}

/**
 * Counts `running` (a worker's jobs running now) in this process's running-jobs gauge, under its
 * tier, until the returned function is called. A process's workers of one tier (one per cell) add up.
 */
export function watchRunning(tier: string, running: () => number): () => void {
  const source = { tier, running };
  runningSources.add(source);
  // Makes the gauge now, so a worker that never finishes a job still reports it.
  tierInstruments();
  return () => runningSources.delete(source);
}

function makeInstruments(meter: Meter): TierInstruments {
  const counter = ({ name, unit, description }: { name: string; unit: string; description: string }) => meter.createCounter(name, { unit, description });
  const histogram = ({ name, unit, description, buckets }: { name: string; unit: string; description: string; buckets: readonly number[] }) =>
    meter.createHistogram(name, { unit, description, advice: { explicitBucketBoundaries: [...buckets] } });
  const M = TIER_METRICS;
  meter.createObservableGauge(M.jobsRunning.name, { unit: M.jobsRunning.unit, description: M.jobsRunning.description }).addCallback(observeRunning);
  return {
    runsFinished: counter(M.runsFinished),
    runDuration: histogram(M.runDuration),
    hopDuration: histogram(M.hopDuration),
    hopQueued: histogram(M.hopQueued),
    retries: counter(M.retries),
    escalations: counter(M.escalations),
    revisions: counter(M.revisions),
    questions: counter(M.questions),
    questionWait: histogram(M.questionWait),
    budgetStops: counter(M.budgetStops),
    deadLetters: counter(M.deadLetters),
    securityFindings: counter(M.securityFindings),
  };
}

function observeRunning(result: ObservableResult): void {
  const byTier = new Map<string, number>();
  for (const { tier, running } of runningSources) byTier.set(tier, (byTier.get(tier) ?? 0) + running());
  for (const [tier, value] of byTier) result.observe(value, { 'tierflow.tier': tier });
}
