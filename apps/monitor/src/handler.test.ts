import { outcomePayloadSchema } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { FakeBeads, FIXED_NOW, fakeContext, rootAssignment, settle, delegated, reported, type OutcomeReply } from '@tierflow/runtime/testing';
import { monitorHandler } from './handler.js';
import { DEFAULT_ARCHITECT_TIMEOUT_MS, type MonitorOptionsInput } from './options.js';

const success = (confidence: number): OutcomeReply => ({ status: 'success', summary: 'solved', confidence, resources_used: { revisions: 0 } });
const recoverable: OutcomeReply = { status: 'failed', summary: 'dispatcher lost', confidence: 0, error_type: 'job_failed', error_detail: 'crash', recoverable: true };

/** A run of one root against shared Beads, with a clock the test moves. */
function run(rootId: string, beads: FakeBeads, options: MonitorOptionsInput = {}, taskData: Record<string, unknown> = { task_type: 'execute_code' }) {
  const clock = { now: FIXED_NOW };
  const assignment = rootAssignment(rootId, { objective: 'binary search', constraints: ['O(log n)'], priority: 1, task_data: taskData });
  // system/loaded-loras has tests of its own below.
  return { assignment, clock, context: fakeContext(assignment, beads, () => clock.now), handler: monitorHandler({ loadedLorasRefreshMs: 0, ...options }) };
}

/** Runs a root to its end, each Architect attempt answering `replies[i]` after `ms`. */
async function complete(rootId: string, beads: FakeBeads, replies: readonly OutcomeReply[], ms = 1_000, options: MonitorOptionsInput = {}) {
  const { assignment, clock, context, handler } = run(rootId, beads, options);
  let step = await handler.start(context);
  for (const [round, reply] of replies.entries()) {
    clock.now += ms;
    step = await handler.resume!(
      context,
      settle(assignment, 'PROGRESS_MONITOR', delegated(step), round, () => reply),
    );
  }
  return step;
}

describe('monitorHandler.start', () => {
  it('delegates the root objective once to the Architect', async () => {
    const beads = new FakeBeads('PROGRESS_MONITOR');
    const { context, handler } = run('r1', beads, {}, { task_type: 'execute_code', plan: { strategy: 'all_success', subtasks: [{ objective: 'a' }] } });
    const step = delegated(await handler.start(context));
    expect(step.children).toEqual([
      {
        task_type: 'solve',
        objective: 'binary search',
        constraints: ['O(log n)'],
        priority: 1,
        timeout_ms: DEFAULT_ARCHITECT_TIMEOUT_MS,
        task_data: { task_type: 'execute_code', plan: { strategy: 'all_success', subtasks: [{ objective: 'a' }] } },
      },
    ]);
    expect(step.memo).toEqual({ resets: 0, started_at: FIXED_NOW, attempt_started_at: FIXED_NOW });
    expect(beads.writes).toEqual([]);
  });

  it('hands the root’s deadline hint to the Architect, for its planner', async () => {
    const assignment = rootAssignment('r1', { objective: 'x', deadline_hint: '2026-03-01' });
    const step = delegated(await monitorHandler().start(fakeContext(assignment, new FakeBeads('PROGRESS_MONITOR'))));
    expect(step.children[0]?.deadline_hint).toBe('2026-03-01');
  });

  it('keeps the root’s own timeout', async () => {
    const assignment = rootAssignment('r1', { objective: 'x', timeout_ms: 5_000 });
    const step = delegated(await monitorHandler().start(fakeContext(assignment, new FakeBeads('PROGRESS_MONITOR'))));
    expect(step.children[0]?.timeout_ms).toBe(5_000);
  });
});

describe('monitorHandler.resume', () => {
  it('resets once on a recoverable failure, not twice', async () => {
    const beads = new FakeBeads('PROGRESS_MONITOR');
    const { assignment, clock, context, handler } = run('r1', beads);
    const first = delegated(await handler.start(context));
    clock.now += 500;
    const second = delegated(
      await handler.resume!(
        context,
        settle(assignment, 'PROGRESS_MONITOR', first, 0, () => recoverable),
      ),
    );
    expect(second.children).toEqual(first.children);
    expect(second.memo).toEqual({ resets: 1, started_at: FIXED_NOW, attempt_started_at: FIXED_NOW + 500 });
    expect(beads.writes).toEqual([]);

    clock.now += 700;
    const outcome = reported(
      await handler.resume!(
        context,
        settle(assignment, 'PROGRESS_MONITOR', second, 1, () => recoverable),
      ),
    );
    expect(outcome).toMatchObject({ status: 'failed', error_type: 'job_failed', recoverable: true, resources_used: { resets: 1 }, execution_time_ms: 1_200 });
    expect(beads.values.get('system/runs/r1')).toMatchObject({ status: 'failed', duration_ms: 1_200, resets: 1 });
    expect(beads.values.get('system/bounds/execute_code')).toMatchObject({ n: 1, execution_time_ms: { mean: 700 } });
  });

  it('does not reset an unrecoverable failure', async () => {
    const step = await complete('r1', new FakeBeads('PROGRESS_MONITOR'), [{ ...recoverable, recoverable: false }]);
    expect(reported(step)).toMatchObject({ status: 'failed', recoverable: false, resources_used: { resets: 0 } });
  });

  it('passes a clarification up unchanged and records nothing', async () => {
    const beads = new FakeBeads('PROGRESS_MONITOR');
    const question: OutcomeReply = {
      status: 'needs_clarification',
      summary: 'Ambiguous',
      confidence: 0.4,
      error_type: 'ambiguous_request',
      error_detail: 'Return -1 or raise?',
      recoverable: true,
    };
    const outcome = reported(await complete('r1', beads, [question]));
    expect(outcome).toMatchObject({ ...question, resources_used: {}, surprise_flag: false });
    expect(outcome).not.toHaveProperty('execution_time_ms');
    expect(beads.writes).toEqual([]);
  });

  it('records the run, its history and the bounds in one write', async () => {
    const beads = new FakeBeads('PROGRESS_MONITOR');
    const { assignment, clock, context, handler } = run('r1', beads, {}, { task_type: 'execute_code', plan: { strategy: 'majority', subtasks: [{ objective: 'a' }] } });
    const step = delegated(await handler.start(context));
    clock.now += 2_000;
    const outcome = reported(
      await handler.resume!(
        context,
        settle(assignment, 'PROGRESS_MONITOR', step, 0, () => success(0.9)),
      ),
    );
    expect(outcomePayloadSchema.parse(outcome)).toMatchObject({ status: 'success', confidence: 0.9, execution_time_ms: 2_000, resources_used: { revisions: 0, resets: 0 } });
    expect(beads.writes).toEqual([
      [
        {
          key: 'system/bounds/execute_code',
          value: { n: 1, confidence: { mean: 0.9, m2: 0, min: 0.9, max: 0.9 }, execution_time_ms: { mean: 2_000, m2: 0, min: 2_000, max: 2_000 } },
          ttlMs: null,
        },
        { key: 'system/runs/r1', value: { status: 'success', confidence: 0.9, duration_ms: 2_000, resets: 0, finished_at: new Date(FIXED_NOW + 2_000).toISOString() } },
        // Kept thirty days, the learned history longer (history-fold.test.ts).
        { key: 'history/runs/r1', value: { status: 'success', confidence: 0.9, task_type: 'execute_code', strategy: 'majority' }, ttlMs: 30 * 24 * 3600_000 },
      ],
    ]);
  });

  it.each<[number, boolean]>([
    [4, false],
    [5, true],
  ])('after %i ordinary runs, an outlier is flagged: %s (minSamples 5)', async (ordinary, flagged) => {
    const beads = new FakeBeads('PROGRESS_MONITOR');
    for (let i = 0; i < ordinary; i++) {
      expect(reported(await complete(`r${i}`, beads, [success(0.9)])).surprise_flag).toBe(false);
    }
    const outlier = reported(await complete('odd', beads, [success(0.1)]));
    expect(outlier.surprise_flag).toBe(flagged);
    expect(outlier.surprise_reason).toEqual(flagged ? expect.stringMatching(/^confidence 0\.10 is 80\.0σ below the mean 0\.90/) : null);
    expect(beads.values.get('system/bounds/execute_code')).toMatchObject({ n: ordinary + 1 });
  });

  it('judges durations too', async () => {
    const beads = new FakeBeads('PROGRESS_MONITOR');
    for (let i = 0; i < 5; i++) await complete(`r${i}`, beads, [success(0.9)], 1_000);
    const slow = reported(await complete('slow', beads, [success(0.9)], 3_000));
    expect(slow).toMatchObject({ surprise_flag: true, surprise_reason: expect.stringMatching(/^duration 3000ms is 40\.0σ above the mean 1000ms/) as unknown });
  });

  it('leaves a person’s time answering the run’s questions out of the duration it judges', async () => {
    const beads = new FakeBeads('PROGRESS_MONITOR');
    for (let i = 0; i < 5; i++) await complete(`r${i}`, beads, [success(0.9)], 1_000);
    const { assignment, clock, context, handler } = run('asked', beads);
    const step = delegated(await handler.start(context));
    // An hour waiting for an answer, and one second of work.
    clock.now += 3_601_000;
    const outcome = reported(
      await handler.resume!(
        { ...context, waitedMs: 3_600_000 },
        settle(assignment, 'PROGRESS_MONITOR', step, 0, () => success(0.9)),
      ),
    );
    expect(outcome).toMatchObject({ surprise_flag: false });
    expect(beads.values.get('system/bounds/execute_code')).toMatchObject({ n: 6, execution_time_ms: { mean: 1_000 } });
  });

  it('learns a root without a task_type under "objective"', async () => {
    const beads = new FakeBeads('PROGRESS_MONITOR');
    const { assignment, context, handler } = run('r1', beads, {}, {});
    const step = delegated(await handler.start(context));
    await handler.resume!(
      context,
      settle(assignment, 'PROGRESS_MONITOR', step, 0, () => success(0.5)),
    );
    expect([...beads.values.keys()]).toEqual(['system/bounds/objective', 'system/runs/r1', 'history/runs/r1']);
  });
});

describe('system/loaded-loras', () => {
  const agent = (agent_id: string, model?: string) => ({ agent_id, agent_version: '1.0.0', prompt_hash: 'a'.repeat(64), registered_at: '2026-01-01T00:00:00.000Z', ...(model ? { model } : {}) });

  it('lists the models behind the published agents when a root arrives, and looks again only after the interval', async () => {
    const beads = new FakeBeads('PROGRESS_MONITOR');
    // What Fleets published: the Monitor only reads it.
    beads.values.set('execution/agents/python-lora', agent('python-lora', 'python-lora'));
    beads.values.set('execution/agents/writer', agent('writer', 'python-lora'));
    beads.values.set('execution/agents/sim', agent('sim'));
    beads.values.set('execution/agents/broken', { agent_id: 3 });
    const first = run('r1', beads, { loadedLorasRefreshMs: 30_000 });
    await first.handler.start(first.context);
    expect(await beads.get('system/loaded-loras')).toEqual({
      models: ['python-lora'],
      specialists: [
        { agent_id: 'python-lora', agent_version: '1.0.0', model: 'python-lora', registered_at: '2026-01-01T00:00:00.000Z' },
        { agent_id: 'sim', agent_version: '1.0.0', model: null, registered_at: '2026-01-01T00:00:00.000Z' },
        { agent_id: 'writer', agent_version: '1.0.0', model: 'python-lora', registered_at: '2026-01-01T00:00:00.000Z' },
      ],
      updated_at: new Date(FIXED_NOW).toISOString(),
    });
    beads.values.set('execution/agents/sql-lora', agent('sql-lora', 'sql-lora'));
    const writes = beads.writes.length;
    await first.handler.start(first.context);
    expect(beads.writes).toHaveLength(writes);
    first.clock.now += 30_000;
    await first.handler.start(first.context);
    expect(await beads.get('system/loaded-loras')).toMatchObject({ models: ['python-lora', 'sql-lora'] });
  });
});
