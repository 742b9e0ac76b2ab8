import { AGGREGATION_SUMMARY, learningMetadata, recentHalfLifeMs, type LearningRecord } from '@tierflow/core';
import { BOTTLENECKS_KEY, bottlenecksSchema, modelHistoryKey, readSpecialistStats, recentHistoryKey, routingAccuracyKey, specialistHistoryKey } from '@tierflow/runtime/policy';
import { delegated, FakeBeads, FIXED_NOW, fakeContext, learningRecord, rootAssignment, settle, type OutcomeReply } from '@tierflow/runtime/testing';
import { describe, expect, it } from 'vitest';
import { BOTTLENECKS_TTL_MS } from './history-fold.js';
import { monitorHandler } from './handler.js';
import { DEFAULT_HISTORY_HALF_LIFE_MS, type MonitorOptionsInput } from './options.js';

const record = (overrides: Partial<LearningRecord> = {}): LearningRecord => learningRecord({ latency_ms: 120, tokens_in: 5, tokens_out: 7, cost_usd: 0, ...overrides });

/** The Architect's outcome, its summary carrying `learning` (entries as given, parsed or not). */
function withRecords(reply: OutcomeReply, learning: readonly unknown[], dropped = 0): OutcomeReply {
  return {
    ...reply,
    artifacts: [{ artifact_type: AGGREGATION_SUMMARY, inline_content: 'summary', metadata: { ...learningMetadata([]), learning: [...learning] as never, learning_dropped: dropped } }],
  };
}

const success: OutcomeReply = { status: 'success', summary: 'solved', confidence: 0.9 };
const recoverable: OutcomeReply = { status: 'failed', summary: 'lost', confidence: 0, error_type: 'job_failed', error_detail: 'crash', recoverable: true };

/** Runs a root to its end against `beads`, the Architect answering `replies` in turn. */
async function complete(beads: FakeBeads, replies: readonly OutcomeReply[], options: MonitorOptionsInput = {}, warnings: unknown[] = []) {
  const assignment = rootAssignment('r1', { objective: 'x', task_data: { task_type: 'execute_code' } });
  const context = { ...fakeContext(assignment, beads), log: { info: () => undefined, warn: (message: string, fields?: Record<string, unknown>) => void warnings.push({ message, ...fields }) } };
  const handler = monitorHandler({ loadedLorasRefreshMs: 0, ...options });
  let step = await handler.start(context);
  for (const [round, reply] of replies.entries())
    step = await handler.resume!(
      context,
      settle(assignment, 'PROGRESS_MONITOR', delegated(step), round, () => reply),
    );
  return step;
}

describe('the Monitor’s history fold', () => {
  it('adds every record of the Architect’s outcome to its specialist, model and routing accuracy, and lists the bottlenecks', async () => {
    const beads = new FakeBeads('PROGRESS_MONITOR');
    const routing = { mode: 'fixed' as const, reason: 'fixed' as const, fixed: 'sim', learned: null, expected_gain: null };
    const records = [
      ...Array.from({ length: 6 }, () => record({ routing, latency_ms: 5_000 })),
      record({ status: 'failed', model: 'qwen', routing }),
      record({ task_type: 'write', specialist: 'writer' }),
    ];
    await complete(beads, [withRecords(success, records)]);
    expect(beads.adds.map((add) => add.key)).toEqual([
      specialistHistoryKey('execute_code', 'sim'),
      recentHistoryKey('execute_code', 'sim'),
      routingAccuracyKey(),
      routingAccuracyKey('execute_code'),
      modelHistoryKey('execute_code', 'sim', 'qwen'),
      specialistHistoryKey('write', 'writer'),
      recentHistoryKey('write', 'writer'),
    ]);
    const recent = (key: string) => key.endsWith('/recent');
    expect(beads.adds.every((add) => add.options.now === FIXED_NOW)).toBe(true);
    expect(beads.adds.every((add) => add.options.halfLifeMs === (recent(add.key) ? recentHalfLifeMs(DEFAULT_HISTORY_HALF_LIFE_MS) : DEFAULT_HISTORY_HALF_LIFE_MS))).toBe(true);
    const stats = await readSpecialistStats(beads, 'execute_code', ['sim'], FIXED_NOW);
    expect(stats.get('sim')).toMatchObject({ samples: 7, success_rate: 6 / 7 });
    const bottlenecks = bottlenecksSchema.parse(await beads.get(BOTTLENECKS_KEY));
    expect(bottlenecks.bottlenecks.map((entry) => [entry.reason, entry.task_type, entry.specialist])).toEqual([
      ['slow', 'execute_code', 'sim'],
      ['unreliable', 'execute_code', 'sim'],
    ]);
    expect(beads.writes.flat().find((write) => write.key === BOTTLENECKS_KEY)?.ttlMs).toBe(BOTTLENECKS_TTL_MS);
  });

  it('folds a reset attempt’s records too, before the fresh attempt, with the configured half-life', async () => {
    const beads = new FakeBeads('PROGRESS_MONITOR');
    await complete(beads, [withRecords(recoverable, [record({ status: 'failed' })]), withRecords(success, [record()])], { historyHalfLifeMs: 3_600_000 });
    expect(beads.adds.map((add) => [add.key, add.increments['st.failed'] ?? add.increments['st.success'], add.options.halfLifeMs])).toEqual([
      [specialistHistoryKey('execute_code', 'sim'), 1, 3_600_000],
      [recentHistoryKey('execute_code', 'sim'), 1, 3_600_000 / 8],
      [specialistHistoryKey('execute_code', 'sim'), 1, 3_600_000],
      [recentHistoryKey('execute_code', 'sim'), 1, 3_600_000 / 8],
    ]);
  });

  it('keeps what it can read and says what it dropped; an outcome without records adds nothing', async () => {
    const beads = new FakeBeads('PROGRESS_MONITOR');
    const warnings: unknown[] = [];
    await complete(beads, [withRecords(success, [record(), { task_type: '' }, 'junk'], 3)], {}, warnings);
    expect(beads.adds.map((add) => add.key)).toEqual([specialistHistoryKey('execute_code', 'sim'), recentHistoryKey('execute_code', 'sim')]);
    expect(warnings).toContainEqual(expect.objectContaining({ dropped: 5 }));
    const empty = new FakeBeads('PROGRESS_MONITOR');
    await complete(empty, [success]);
    expect(empty.adds).toEqual([]);
    expect(await empty.get(BOTTLENECKS_KEY)).toBeNull();
  });

  it('starts bottlenecks afresh when the kept ones cannot be read, and a failure to keep history fails no run', async () => {
    const beads = new FakeBeads('PROGRESS_MONITOR');
    await beads.set(BOTTLENECKS_KEY, { bottlenecks: 'none' });
    await complete(beads, [withRecords(success, [record()])]);
    expect(bottlenecksSchema.parse(await beads.get(BOTTLENECKS_KEY)).bottlenecks).toEqual([]);
    const refusing = new FakeBeads('PROGRESS_MONITOR');
    refusing.addDecayed = () => Promise.reject(new Error('Redis is gone'));
    const warnings: unknown[] = [];
    const step = await complete(refusing, [withRecords(success, [record()])], {}, warnings);
    expect(step.kind).toBe('outcome');
    expect(warnings).toContainEqual(expect.objectContaining({ message: 'cannot keep the history of this outcome' }));
  });

  it('restarts a specialist’s history from its recent results when they disagree, and says so', async () => {
    const beads = new FakeBeads('PROGRESS_MONITOR');
    for (let i = 0; i < 40; i++) await complete(beads, [withRecords(success, [record()])]);
    expect((await readSpecialistStats(beads, 'execute_code', ['sim'], FIXED_NOW)).get('sim')!.success_rate).toBe(1);
    // Two days on (two half-lives; sixteen of the recent history's), six failures in one run.
    const later = FIXED_NOW + 2 * DEFAULT_HISTORY_HALF_LIFE_MS;
    const notes: unknown[] = [];
    const assignment = rootAssignment('r2', { objective: 'x', task_data: { task_type: 'execute_code' } });
    const log = { info: (message: string, fields?: Record<string, unknown>) => void notes.push({ message, ...fields }), warn: () => undefined };
    const context = { ...fakeContext(assignment, beads), now: () => later, log };
    const handler = monitorHandler({ loadedLorasRefreshMs: 0 });
    const step = await handler.start(context);
    const failing = Array.from({ length: 6 }, () => record({ status: 'failed' }));
    await handler.resume!(
      context,
      settle(assignment, 'PROGRESS_MONITOR', delegated(step), 0, () => withRecords(success, failing)),
    );
    const after = (await readSpecialistStats(beads, 'execute_code', ['sim'], later)).get('sim')!;
    // Folded into the ten successes left of forty, six failures would leave 0.62; restarted from the recent history, none succeeded.
    expect(after.success_rate).toBeCloseTo(0, 3);
    expect(after.samples).toBeCloseTo(6, 2);
    const note = notes.find((entry): entry is { specialist: string; recent_rate: number } => (entry as { task_type?: string }).task_type === 'execute_code');
    expect(note?.specialist).toBe('sim');
    expect(note?.recent_rate).toBeCloseTo(0, 3);
  });
});
