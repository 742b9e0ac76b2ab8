import { isTierflowError, TierflowError } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { simContent, simSpecialist } from './sim.js';
import { SpecialistUnavailableError, type SpecialistResult } from './specialist.js';
import { specialistInput } from './test-input.js';

const run = (sim: unknown, attempt = 1, signal?: AbortSignal): Promise<SpecialistResult> => simSpecialist.run(specialistInput({ sim, attempt, ...(signal ? { signal } : {}) }));

describe('sim statuses', () => {
  it.each([
    ['success', undefined, undefined, undefined],
    ['partial', 'sim_partial', 'sim: scripted partial', true],
    ['failed', 'sim_failed', 'sim: scripted failed', true],
    ['blocked', 'sim_blocked', 'sim: scripted blocked', true],
    ['needs_clarification', 'ambiguous_request', 'sim: which variant is wanted?', true],
  ] as const)('%s → error_type %s', async (status, errorType, detail, recoverable) => {
    const result = await run({ status });
    expect(result.status).toBe(status);
    expect(result.summary).toContain(status);
    expect(result.error_type).toBe(errorType);
    expect(result.error_detail).toBe(detail);
    expect(result.recoverable).toBe(recoverable);
  });

  it('succeeds with confidence 0.9 and no artifacts when task_data has no sim', async () => {
    const result = await simSpecialist.run(specialistInput());
    expect(result).toMatchObject({ status: 'success', confidence: 0.9, artifacts: [] });
    expect(result.summary).toBe('sim: success on attempt 1');
  });

  it('reports the handoff metadata it is given, and refuses a date that is not one', async () => {
    const metadata = { format: 'markdown', sources_count: 7, data_freshness: '2026-02-28', gaps: ['no prices'], assumptions: ['2025 market size'] };
    expect(await run(metadata)).toMatchObject(metadata);
    expect(await run({})).not.toHaveProperty('gaps');
    await expect(run({ data_freshness: 'yesterday' })).rejects.toMatchObject({ code: 'invalid_sim_config' });
  });

  it('reports the confidence it is given', async () => {
    expect((await run({ confidence: 0.25 })).confidence).toBe(0.25);
    expect((await run({ confidence: 0 })).confidence).toBe(0);
  });

  it('puts the question of needs_clarification in error_detail', async () => {
    const result = await run({ status: 'needs_clarification', question: 'Should an empty array return -1 or raise?' });
    expect(result).toMatchObject({
      status: 'needs_clarification',
      error_type: 'ambiguous_request',
      error_detail: 'Should an empty array return -1 or raise?',
      recoverable: true,
    });
  });
});

describe('sim failures', () => {
  it.each([
    [1, 'sim: transient failure 1 of 2'],
    [2, 'sim: transient failure 2 of 2'],
    [3, null],
  ] as const)('fail_times 2, attempt %i → %s', async (attempt, message) => {
    const outcome = run({ fail_times: 2 }, attempt);
    if (message === null) {
      await expect(outcome).resolves.toMatchObject({ status: 'success', summary: 'sim: success on attempt 3' });
      return;
    }
    const error: unknown = await outcome.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TierflowError);
    expect(error).toMatchObject({ message, code: 'sim_transient', retryable: true });
  });

  describe('block', () => {
    const block = 'Waiting for the API key';
    const blocking = (taskData: Record<string, unknown>): Promise<SpecialistResult> => simSpecialist.run(specialistInput({ taskData: { sim: { block }, ...taskData } }));

    it('reports blocked until its delegation carries an unblock note for it', async () => {
      expect(await blocking({})).toMatchObject({ status: 'blocked', error_type: 'sim_blocked', error_detail: block, recoverable: true });
      expect(await blocking({ unblocked: [{ blocker_id: 'r.0-0.out', blocker: 'Another', note: 'x' }] })).toMatchObject({ status: 'blocked' });
    });

    it('then does as scripted, the note as an artifact', async () => {
      const result = await blocking({ unblocked: [{ blocker_id: 'r.0-0.out', blocker: block, note: 'key issued' }] });
      expect(result).toMatchObject({ status: 'success' });
      expect(result.summary).toContain('unblocked: key issued');
      expect(result.artifacts).toEqual([{ artifact_type: 'text', content: 'key issued', metadata: { blocker: block } }]);
    });
  });

  describe('ask', () => {
    const ask = 'Which region?';
    const asking = (taskData: Record<string, unknown>): Promise<SpecialistResult> => simSpecialist.run(specialistInput({ taskData: { sim: { ask }, ...taskData } }));

    it('asks until its delegation carries an answer to its question', async () => {
      expect(await asking({})).toMatchObject({ status: 'needs_clarification', error_type: 'ambiguous_request', error_detail: ask });
      const other = [{ question_id: 'r.0-0.out', question: 'Which year?', answer: '2026' }];
      expect(await asking({ clarifications: other })).toMatchObject({ status: 'needs_clarification', error_detail: ask });
    });

    it('answered, it does as scripted and puts the answer in an artifact', async () => {
      const result = await asking({ clarifications: [{ question_id: 'r.0-0.out', question: ask, answer: 'eu-west' }] });
      expect(result).toMatchObject({ status: 'success', summary: 'sim: success on attempt 1, told: eu-west' });
      expect(result.artifacts).toEqual([{ artifact_type: 'text', content: 'eu-west', metadata: { question: ask } }]);
    });
  });

  it('throws a permanent error', async () => {
    await expect(run({ permanent_error: true })).rejects.toMatchObject({ code: 'sim_permanent', retryable: false });
  });

  it('throws SpecialistUnavailableError', async () => {
    const error: unknown = await run({ unavailable: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SpecialistUnavailableError);
    expect(error).toMatchObject({ code: 'specialist_unavailable', retryable: false });
  });
});

describe('sim output', () => {
  it.each([0, 1, 100, 1023, 1024, 2048])('output_bytes %i → one text artifact of exactly that many ASCII bytes', async (bytes) => {
    const result = await run({ output_bytes: bytes });
    expect(result.artifacts).toHaveLength(1);
    const artifact = result.artifacts?.[0];
    expect(artifact?.artifact_type).toBe('text');
    expect(artifact?.content).toHaveLength(bytes);
    expect(Buffer.byteLength(artifact?.content ?? '', 'utf8')).toBe(bytes);
    expect(artifact?.content).toMatch(/^[\x20-\x7e]*$/);
    expect(result.summary).toContain(`${bytes} bytes`);
  });

  it('makes the same content every time', () => {
    expect(simContent(2048)).toBe(simContent(2048));
  });
});

describe('sim config', () => {
  it.each([
    [{ confidence: 1.5 }, 'task_data.sim.confidence'],
    [{ confidence: -0.1 }, 'task_data.sim.confidence'],
    [{ delay_ms: -1 }, 'task_data.sim.delay_ms'],
    [{ fail_times: 1.5 }, 'task_data.sim.fail_times'],
    [{ output_bytes: 'big' }, 'task_data.sim.output_bytes'],
    [{ status: 'timeout' }, 'task_data.sim.status'],
    [{ permanent_error: 'yes' }, 'task_data.sim.permanent_error'],
    [{ question: '' }, 'task_data.sim.question'],
    [{ fail_time: 2 }, 'fail_time'],
    ['succeed', 'task_data.sim'],
  ])('%j is refused, naming %s', async (sim, field) => {
    const error: unknown = await run(sim).catch((e: unknown) => e);
    expect(isTierflowError(error)).toBe(true);
    expect(error).toMatchObject({ code: 'invalid_sim_config', retryable: false });
    expect((error as Error).message).toContain(field);
  });
});

describe('sim delay', () => {
  it('waits delay_ms, then succeeds', async () => {
    const started = Date.now();
    const result = await run({ delay_ms: 30 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    expect(result.summary).toBe('sim: success on attempt 1 after 30 ms');
  });

  it('stops at once when the signal aborts during a 5 s delay', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const outcome = run({ delay_ms: 5000 }, 1, controller.signal);
    setTimeout(() => controller.abort(), 20);
    await expect(outcome).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - started).toBeLessThan(200);
  });

  it('throws the abort reason it was given', async () => {
    const controller = new AbortController();
    const reason = TierflowError.permanent('cancelled by the Dispatcher', { code: 'cancelled', kind: 'conflict' });
    const outcome = run({ delay_ms: 5000 }, 1, controller.signal);
    controller.abort(reason);
    await expect(outcome).rejects.toBe(reason);
  });

  it('does not start when the signal has already aborted', async () => {
    const signal = AbortSignal.abort();
    await expect(run({ delay_ms: 5000 }, 1, signal)).rejects.toMatchObject({ name: 'AbortError' });
    await expect(run({}, 1, signal)).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('sim progress', () => {
  it('reports how far along a long delay is every half second, and nothing for a short one', async () => {
    const updates: unknown[] = [];
    await simSpecialist.run(specialistInput({ sim: { delay_ms: 1_200 }, progress: (update) => void updates.push(update) }));
    expect(updates).toEqual([
      { percent: 42, note: 'sim: 500 of 1200 ms' },
      { percent: 83, note: 'sim: 1000 of 1200 ms' },
    ]);
    updates.length = 0;
    await simSpecialist.run(specialistInput({ sim: { delay_ms: 900 }, progress: (update) => void updates.push(update) }));
    expect(updates).toEqual([]);
  });
});

describe('sim given upstream work', () => {
  const work = (index: number, artifacts: number) => ({
    subtask_index: index,
    message_id: `r.0-${index - 1}`,
    task_type: 'write',
    specialist: 'sim',
    summary: `draft ${index}`,
    confidence: 0.9,
    evidence_grade: null,
    artifacts: Array.from({ length: artifacts }, () => ({ artifact_type: 'text', content_ref: null, inline_content: 'x', metadata: {} })),
  });

  it('says whose work it was given, and lists it in an upstream artifact', async () => {
    const result = await simSpecialist.run(specialistInput({ taskData: { sim: { output_bytes: 3 }, upstream: [work(1, 2), work(2, 0)] } }));
    expect(result.summary).toBe('sim: success on attempt 1 with 3 bytes of output, given the work of subtasks 1, 2');
    expect(result.artifacts).toEqual([
      { artifact_type: 'text', content: 'tie', metadata: { bytes: 3 } },
      {
        artifact_type: 'upstream',
        content: JSON.stringify([
          { subtask_index: 1, specialist: 'sim', summary: 'draft 1', artifacts: 2 },
          { subtask_index: 2, specialist: 'sim', summary: 'draft 2', artifacts: 0 },
        ]),
      },
    ]);
  });

  it('names one subtask in the singular, and says it on a failure too', async () => {
    const result = await simSpecialist.run(specialistInput({ taskData: { sim: { status: 'failed' }, upstream: [work(3, 1)] } }));
    expect(result).toMatchObject({ status: 'failed', summary: 'sim: failed on attempt 1, given the work of subtask 3' });
  });

  it('is unchanged without upstream work, or with a malformed one', async () => {
    const plain = await simSpecialist.run(specialistInput());
    expect(await simSpecialist.run(specialistInput({ taskData: { upstream: 'not a list' } }))).toEqual(plain);
    expect(await simSpecialist.run(specialistInput({ taskData: { upstream: [] } }))).toEqual(plain);
  });
});
