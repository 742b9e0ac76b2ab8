import { fastSafeParse, isTierflowError, type OutcomePayload, TierflowError } from '@tierflow/protocol';
import { passUp, recordEscalations, weighRevision, withStopNote } from '@tierflow/runtime/policy';
import { usageOf } from '@tierflow/core';
import { startPolicyWorker, type RootWorkerOptions, type SettledRound, type Step, type TierContext, type TierHandler, type TierWorker } from '@tierflow/runtime';
import { architectDraft } from './architect-draft.js';
import { boundsSchema, updateBounds, type Bounds } from './bounds.js';
import { decideMonitor } from './decide.js';
import { loadedLorasKeeper } from './loaded-loras.js';
import { readMemo, type MonitorMemo } from './monitor-memo.js';
import { HISTORY_RUN_TTL_MS, resolveMonitorOptions, type MonitorOptionsInput, type ResolvedMonitorOptions } from './options.js';
import { runRecords, strategyOf, taskTypeOf } from './records.js';
import { evaluatedReport } from './report.js';
import { foldHistory } from './history-fold.js';
import { BottleneckSchedule } from './bottleneck-schedule.js';
import { revisionFold, revisionsOf } from './revision-history.js';
import { checkSurprise } from './surprise.js';
import { boundsKey, runKeys } from './system-keys.js';

/**
 * The Progress Monitor's policy: hands the root objective to the Architect, resets a recoverable
 * failure a bounded number of times, and judges the final outcome against the bounds learned for
 * its task type, flagging a surprise (docs/protocol.md#outcome-payload). The
 * decisions live in pure functions; this shell reads the context and writes Beads.
 *
 * @throws TierflowError (permanent, code `invalid_config`) for bad options, at once.
 */
export function monitorHandler(input: MonitorOptionsInput = {}): TierHandler {
  const options = resolveMonitorOptions(input);
  const keepLoadedLoras = loadedLorasKeeper(options.loadedLorasRefreshMs);
  const bottlenecks = new BottleneckSchedule(options.bottlenecksRefreshMs);
  return {
    tier: 'PROGRESS_MONITOR',
    start: async (context) => {
      const now = context.now();
      // System state, kept as roots arrive: a failure to keep it must not fail the root.
      await keepLoadedLoras(context.beads, now).catch((error: unknown) => context.log.warn('cannot update system/loaded-loras', { error: String(error) }));
      return delegate(context, options, { resets: 0, started_at: now, attempt_started_at: now });
    },
    resume: (context, round) => resume(context, round, options, bottlenecks),
  };
}

/** How to run a Monitor worker: the host's options, and the policy's. */
export type MonitorWorkerOptions = MonitorOptionsInput & RootWorkerOptions;

/** Starts a Monitor worker on the `monitor` queue, where root objectives arrive; resolves once it takes jobs. */
export function startMonitorWorker(options: MonitorWorkerOptions): Promise<TierWorker> {
  return startPolicyWorker(monitorHandler, options);
}

function delegate(context: TierContext, options: ResolvedMonitorOptions, memo: MonitorMemo): Step {
  return { kind: 'delegate', children: [architectDraft(context.assignment.payload, options.architectTimeoutMs)], strategy: 'all_success', memo };
}

async function resume(context: TierContext, round: SettledRound, options: ResolvedMonitorOptions, bottlenecks: BottleneckSchedule): Promise<Step> {
  const memo = readMemo(round.memo);
  const child = round.children[0];
  if (!child) throw TierflowError.permanent('the Architect round came back without its child', { code: 'invalid_round' });
  const outcome = child.outcome.payload;

  switch (decideMonitor(outcome, memo.resets, options.maxResets)) {
    case 'pass_up':
      return { kind: 'outcome', outcome: passUp(outcome) };
    case 'reset': {
      // What the failed attempt's leaves did is history too, before the fresh attempt.
      await foldHistory(context, outcome, options.historyHalfLifeMs, bottlenecks);
      // Another attempt only when history and the budget left say it is worth one (docs/protocol.md#revisions).
      const verdict = await weighRevision(context, usageOf(outcome.resources_used));
      if (!verdict.revise) {
        context.log.info('not resetting', { reason: verdict.reason, error_type: outcome.error_type });
        return evaluate(context, withStopNote(outcome, `not reset: ${verdict.reason ?? 'not worth another attempt'}`), memo, options);
      }
      context.log.warn('resetting after a recoverable failure', { reset: memo.resets + 1, error_type: outcome.error_type });
      recordEscalations('PROGRESS_MONITOR');
      const revisions = (memo.revisions ?? 0) + revisionsOf(outcome);
      return delegate(context, options, { ...memo, resets: memo.resets + 1, attempt_started_at: context.now(), ...(revisions > 0 ? { revisions } : {}) });
    }
    case 'evaluate':
      await foldHistory(context, outcome, options.historyHalfLifeMs, bottlenecks);
      return evaluate(context, outcome, memo, options);
  }
}

async function evaluate(context: TierContext, outcome: OutcomePayload, memo: MonitorMemo, options: ResolvedMonitorOptions): Promise<Step> {
  const { rootId, payload } = context.assignment;
  const now = context.now();
  const taskType = taskTypeOf(payload.task_data);
  const key = boundsKey(taskType);
  const bounds = await readBounds(context, key);
  // The work's own time: a person's time answering the run's questions is no measure of its task type.
  const sample = { confidence: outcome.confidence, execution_time_ms: Math.max(0, now - memo.attempt_started_at - context.waitedMs) };
  const surprise = checkSurprise(bounds, sample, options.surprise);
  const records = runRecords({
    status: outcome.status,
    confidence: outcome.confidence,
    taskType,
    strategy: strategyOf(payload.task_data),
    resets: memo.resets,
    startedAt: memo.started_at,
    now,
  });
  const keys = runKeys(rootId);
  // How revising went, when the Architect revised (in this attempt or one reset): one atomic add, with the step.
  const revised = revisionFold(taskType, (memo.revisions ?? 0) + revisionsOf(outcome), outcome.status);
  if (revised) await context.beads.addDecayed(revised.key, revised.increments, { halfLifeMs: options.historyHalfLifeMs, now });
  // Read-modify-write without a lock: two roots of one task type finishing together may lose one
  // update. The statistics are approximate, which a surprise heuristic can afford.
  await context.beads.setMany([
    // Learned bounds are the Monitor's memory across runs: they never expire.
    { key, value: updateBounds(bounds, sample), ttlMs: null },
    { key: keys.run, value: records.run },
    { key: keys.history, value: records.history, ttlMs: HISTORY_RUN_TTL_MS },
  ]);
  return { kind: 'outcome', outcome: evaluatedReport(outcome, { surprise, resets: memo.resets, durationMs: records.run.duration_ms }) };
}

/** The bounds learned so far; bounds that are unreadable are started afresh rather than failing the run. */
async function readBounds(context: TierContext, key: string): Promise<Bounds | null> {
  let value: unknown;
  try {
    value = await context.beads.get(key);
  } catch (error) {
    // Only a value that is not JSON is forgiven; Redis errors propagate, and the runtime retries them.
    if (!isTierflowError(error) || error.code !== 'beads_corrupt') throw error;
    context.log.warn('bounds are not JSON, starting afresh', { key });
    return null;
  }
  if (value === null) return null;
  const parsed = fastSafeParse(boundsSchema, value);
  if (parsed.success) return parsed.data;
  context.log.warn('bounds of an unknown shape, starting afresh', { key });
  return null;
}
