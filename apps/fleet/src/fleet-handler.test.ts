import { ROOT_CONTEXT } from '@opentelemetry/api';
import { canWrite, type BeadsEntry, type BeadsStore } from '@tierflow/beads';
import { delegationPayloadSchema, outcomePayloadSchema, resolveErrorPolicy, TierflowError, type DelegationPayloadInput, type ErrorPolicy } from '@tierflow/protocol';
import { UNMETERED, UNRECORDED_CALLS } from '@tierflow/runtime/policy';
import { type Step, type TierContext, type TierLogger } from '@tierflow/runtime';
import { describe, expect, it } from 'vitest';
import { fleetHandler, type FleetHandlerOptions } from './fleet-handler.js';
import { promptHashOf } from './agent-identity.js';
import { defaultRegistry } from './registry.js';
import { simSpecialist } from './sim.js';
import type { FleetOutcome } from './specialist-outcome.js';
import { defineSpecialist, SpecialistThrottledError, type Specialist, type SpecialistInput, type SpecialistResult } from './specialist.js';

const ID = 'msg-002';
const STARTED = Date.parse('2025-01-15T10:30:05Z');

/** The BeadsStore methods the Fleet uses, in memory, recording every setMany batch. */
function fakeBeads(stored = new Map<string, unknown>()) {
  const batches: BeadsEntry[][] = [];
  const fake = {
    tier: 'SPECIALIZED_FLEET',
    ref: (key: string) => (key.startsWith('beads:') ? key : `beads:${key}`),
    // As the real store does: a value its schema refuses is a permanent `beads_invalid_value`.
    get: (key: string, schema?: { parse(value: unknown): unknown }) => {
      const value = stored.get(key) ?? null;
      if (value === null || !schema) return Promise.resolve(value);
      try {
        return Promise.resolve(schema.parse(value));
      } catch (cause) {
        return Promise.reject(TierflowError.permanent(`beads:${key} holds a value its schema refuses`, { code: 'beads_invalid_value', cause }));
      }
    },
    getMany: (keys: readonly string[]) => Promise.all(keys.map((key) => fake.get(key.replace(/^beads:/, '')))),
    setMany: (entries: readonly BeadsEntry[]) => {
      for (const entry of entries) stored.set(entry.key, entry.value);
      // The recorded outcome rides in every batch; the tests below look at the rest.
      batches.push(entries.filter((entry) => !entry.key.startsWith('execution/completions/')));
      return Promise.resolve();
    },
  };
  return { beads: fake as unknown as BeadsStore, batches, stored };
}

interface Harness {
  readonly step: Promise<Step>;
  readonly batches: BeadsEntry[][];
  readonly warnings: string[];
}

function runFleet(
  payload: Partial<DelegationPayloadInput>,
  {
    specialists = [],
    attempt = 1,
    signal = new AbortController().signal,
    options = {},
    stored,
  }: { specialists?: Specialist[]; attempt?: number; signal?: AbortSignal; options?: FleetHandlerOptions; stored?: Map<string, unknown> } = {},
): Harness {
  const registry = defaultRegistry();
  for (const specialist of specialists) registry.register(specialist);
  const { beads, batches } = fakeBeads(stored);
  const warnings: string[] = [];
  const log: TierLogger = { info: () => undefined, warn: (message) => warnings.push(message) };
  let clock = STARTED;
  const parsed = delegationPayloadSchema.parse({ task_type: 'execute_code', objective: 'Write binary search function', specialist_hint: 'sim', ...payload });
  const context: TierContext = {
    tier: 'SPECIALIZED_FLEET',
    assignment: { id: ID, rootId: 'root-1', payload: parsed, message: null },
    attempt,
    redelivered: attempt > 1,
    maxAttempts: 3,
    signal,
    answerBy: null,
    waitedMs: 0,
    errorPolicy: resolveErrorPolicy(parsed.error_policy),
    beads,
    log,
    traceContext: ROOT_CONTEXT,
    usage: UNMETERED,
    calls: UNRECORDED_CALLS,
    progress: () => undefined,
    now: () => (clock += 250) - 250, // 250 ms per reading: started, then finished
  };
  return { step: fleetHandler(registry, options).start(context), batches, warnings };
}

async function outcomeOf(harness: Harness): Promise<FleetOutcome> {
  const step = await harness.step;
  if (step.kind !== 'outcome') throw new Error(`expected an outcome, got ${step.kind}`);
  // The runtime's OutcomeDraft type checks no field; the Fleet builds FleetOutcomes, and expectValidOutcome checks them on the wire schema.
  return step.outcome as unknown as FleetOutcome;
}

function expectValidOutcome(outcome: FleetOutcome): void {
  const parsed = outcomePayloadSchema.safeParse({ ...outcome, execution_time_ms: 0 });
  expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
}

const fixed = (result: SpecialistResult, name = 'fixed'): Specialist => defineSpecialist({ name, version: '2.1.0', run: () => Promise.resolve(result) });

describe('fleetHandler: a run that finished before its worker died', () => {
  it('records its outcome with its outputs, and a later delivery answers from the record without running again', async () => {
    const stored = new Map<string, unknown>();
    let runs = 0;
    const counting = defineSpecialist({
      name: 'counting',
      version: '1.0.0',
      run: () => {
        runs++;
        return Promise.resolve({ summary: 'ran', confidence: 0.8 });
      },
    });
    const first = await outcomeOf(runFleet({ specialist_hint: 'counting' }, { specialists: [counting], stored }));
    expect(stored.get(`execution/completions/${ID}`)).toMatchObject({ outcome: first });
    const again = await outcomeOf(runFleet({ specialist_hint: 'counting' }, { specialists: [counting], stored, attempt: 2 }));
    expect(again).toEqual(first);
    expect(runs).toBe(1);
  });

  it('runs again, saying so, when the record it finds is not an outcome', async () => {
    const stored = new Map<string, unknown>([[`execution/completions/${ID}`, { outcome: { status: 'exploded' }, attempt: 1 }]]);
    const harness = runFleet({ task_data: { sim: {} } }, { stored, attempt: 2 });
    const outcome = await outcomeOf(harness);
    expect(outcome.status).toBe('success');
    expect(harness.warnings).toContain('ignored a completion record that cannot be read; running again');
  });
});

describe('fleetHandler: handoff metadata', () => {
  it("puts what the specialist says of its work on the outcome, and hands it the delegation's context limit", async () => {
    const metadata = { format: 'json', sources_count: 2, data_freshness: '2026-02-28T10:00:00Z', gaps: ['no prices'], assumptions: ['EU only'] };
    const outcome = await outcomeOf(runFleet({ task_data: { sim: metadata } }));
    expect(outcome).toMatchObject(metadata);
    expectValidOutcome(outcome);
    const seen: (number | null | undefined)[] = [];
    const spy = defineSpecialist({ name: 'spy', version: '1', run: (input) => (seen.push(input.maxContextTokens), Promise.resolve({ summary: 'seen', confidence: 1 })) });
    await runFleet({ specialist_hint: 'spy', handoff: { max_context_tokens: 4000 } }, { specialists: [spy] }).step;
    expect(seen).toEqual([4000]);
  });
});

describe('fleetHandler: artifacts and Beads', () => {
  it('sends a 100-byte artifact inline and writes only the execution log', async () => {
    const harness = runFleet({ task_data: { sim: { output_bytes: 100 } } });
    const outcome = await outcomeOf(harness);
    expect(outcome.artifacts).toHaveLength(1);
    expect(outcome.artifacts[0]).toMatchObject({ artifact_type: 'text', content_ref: null, metadata: { bytes: 100 } });
    expect(outcome.artifacts[0]?.inline_content).toHaveLength(100);
    expect(outcome.result_refs).toEqual([]);
    expect(harness.batches).toHaveLength(1);
    expect(harness.batches[0]?.map((entry) => entry.key)).toEqual([`execution/logs/${ID}`]);
    expectValidOutcome(outcome);
  });

  it('sends a 2048-byte artifact by content_ref, its content written with the log in one setMany', async () => {
    const harness = runFleet({ task_data: { sim: { output_bytes: 2048 } } });
    const outcome = await outcomeOf(harness);
    expect(outcome.artifacts).toEqual([{ artifact_type: 'text', content_ref: `beads:execution/outputs/${ID}`, inline_content: null, metadata: { bytes: 2048 } }]);
    expect(outcome.result_refs).toEqual([`beads:execution/outputs/${ID}`]);
    expect(harness.batches).toHaveLength(1);
    const [output, log] = harness.batches[0] ?? [];
    expect(output?.key).toBe(`execution/outputs/${ID}`);
    expect(typeof output?.value === 'string' ? Buffer.byteLength(output.value) : null).toBe(2048);
    expect(log).toEqual({
      key: `execution/logs/${ID}`,
      value: { specialist: 'sim', version: '1.0.0', attempt: 1, status: 'success', started_at: '2025-01-15T10:30:05.000Z', finished_at: '2025-01-15T10:30:05.250Z' },
    });
    expectValidOutcome(outcome);
  });

  it('numbers the keys of later artifacts, and stores only the large ones', async () => {
    const big = 'x'.repeat(4096);
    const harness = runFleet(
      { specialist_hint: 'fixed' },
      {
        specialists: [
          fixed({
            summary: 'three outputs',
            confidence: 0.8,
            artifacts: [
              { artifact_type: 'code', content: big, metadata: { language: 'python' } },
              { artifact_type: 'test_result', content: '5/5 tests passed' },
              { artifact_type: 'analysis', content: big },
            ],
          }),
        ],
      },
    );
    const outcome = await outcomeOf(harness);
    expect(outcome.artifacts.map((a) => [a.content_ref, a.inline_content])).toEqual([
      [`beads:execution/outputs/${ID}`, null],
      [null, '5/5 tests passed'],
      [`beads:execution/outputs/${ID}/2`, null],
    ]);
    expect(outcome.result_refs).toEqual([`beads:execution/outputs/${ID}`, `beads:execution/outputs/${ID}/2`]);
    expect(harness.batches.map((batch) => batch.map((entry) => entry.key))).toEqual([[`execution/outputs/${ID}`, `execution/outputs/${ID}/2`, `execution/logs/${ID}`]]);
    for (const entry of harness.batches.flat()) expect(canWrite('SPECIALIZED_FLEET', entry.key)).toBe(true);
    expectValidOutcome(outcome);
  });

  it('gives every write the output TTL when one is set, and none of its own otherwise', async () => {
    const withTtl = runFleet({ task_data: { sim: { output_bytes: 2048 } } }, { options: { outputTtlMs: 60_000 } });
    await withTtl.step;
    expect(withTtl.batches[0]?.map((entry) => entry.ttlMs)).toEqual([60_000, 60_000]);
    const without = runFleet({ task_data: { sim: { output_bytes: 2048 } } });
    await without.step;
    for (const entry of without.batches.flat()) expect(entry).not.toHaveProperty('ttlMs');
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses outputTtlMs %d', (outputTtlMs) => {
    expect(() => fleetHandler(defaultRegistry(), { outputTtlMs })).toThrow(expect.objectContaining({ code: 'invalid_config' }));
  });
});

describe('fleetHandler: outcomes', () => {
  it('reports success without error fields, and the specialist in resources_used', async () => {
    const outcome = await outcomeOf(runFleet({}));
    expect(outcome).toMatchObject({ status: 'success', summary: 'sim: success on attempt 1', confidence: 0.9 });
    expect(outcome.resources_used).toEqual({ specialist: 'sim', specialist_version: '1.0.0', delay_ms: 0 });
    for (const field of ['error_type', 'error_detail', 'recoverable']) expect(outcome).not.toHaveProperty(field);
    expectValidOutcome(outcome);
  });

  it('drops error fields a specialist sets on success, which the protocol would refuse', async () => {
    const harness = runFleet(
      { specialist_hint: 'fixed' },
      { specialists: [fixed({ summary: 'ok', confidence: 1, error_type: 'none', error_detail: '', recoverable: false, resources_used: { tokens_in: 450 } })] },
    );
    const outcome = await outcomeOf(harness);
    for (const field of ['error_type', 'error_detail', 'recoverable']) expect(outcome).not.toHaveProperty(field);
    expect(outcome.resources_used).toEqual({ specialist: 'fixed', specialist_version: '2.1.0', tokens_in: 450 });
    expectValidOutcome(outcome);
  });

  it.each([
    ['partial', 'sim_partial'],
    ['failed', 'sim_failed'],
    ['blocked', 'sim_blocked'],
    ['needs_clarification', 'ambiguous_request'],
  ] as const)('passes %s on with its error fields', async (status, errorType) => {
    const harness = runFleet({ task_data: { sim: { status, question: 'Which language?' } } });
    const outcome = await outcomeOf(harness);
    expect(outcome).toMatchObject({ status, error_type: errorType, recoverable: true });
    expect(typeof outcome.error_detail).toBe('string');
    expect(harness.batches[0]?.at(-1)?.value).toMatchObject({ status });
    expectValidOutcome(outcome);
  });

  it('hands the specialist the delegation', async () => {
    const seen: SpecialistInput[] = [];
    const spy = defineSpecialist({
      name: 'spy',
      version: '1',
      run: (input) => {
        seen.push(input);
        return Promise.resolve({ summary: 'seen', confidence: 1 });
      },
    });
    const signal = new AbortController().signal;
    const harness = runFleet(
      { specialist_hint: 'spy', constraints: ['Return -1 if not found'], context_refs: ['beads:task/problem'], task_data: { language: 'python' } },
      { specialists: [spy], attempt: 2, signal },
    );
    await harness.step;
    expect(await seen[0]?.readContext()).toEqual({ 'beads:task/problem': null });
    expect(seen).toEqual([
      {
        readContext: expect.any(Function) as unknown,
        messageId: ID,
        rootId: 'root-1',
        objective: 'Write binary search function',
        taskType: 'execute_code',
        constraints: ['Return -1 if not found'],
        contextRefs: ['beads:task/problem'],
        taskData: { language: 'python' },
        expectedOutputSchema: null,
        maxContextTokens: null,
        deadline: null,
        attempt: 2,
        signal,
        traceContext: ROOT_CONTEXT,
        usage: UNMETERED,
        calls: UNRECORDED_CALLS,
        progress: expect.any(Function) as unknown,
        repair: null,
      },
    ]);
  });
});

describe('fleetHandler: on_format_mismatch adapt', () => {
  const schema = { type: 'object', required: ['confidence'], properties: { confidence: { type: 'number', minimum: 0.8 } } };

  it('runs a specialist that repairs once more, with the mismatches, and reports the mended answer', async () => {
    const harness = runFleet({ expected_output_schema: schema, error_policy: { on_format_mismatch: 'adapt' }, task_data: { sim: { confidence: 0.5, repaired: { confidence: 0.9 } } } });
    expect((await outcomeOf(harness)).confidence).toBe(0.9);
  });

  it.each<[string, ErrorPolicy | undefined]>([
    ['under reject', { on_format_mismatch: 'reject' }],
    ['without a policy (the default, reject)', undefined],
  ])('leaves the answer as it came %s: the runtime refuses it', async (_label, policy) => {
    const harness = runFleet({ expected_output_schema: schema, ...(policy ? { error_policy: policy } : {}), task_data: { sim: { confidence: 0.5, repaired: { confidence: 0.9 } } } });
    expect((await outcomeOf(harness)).confidence).toBe(0.5);
  });

  it('does not run a specialist that cannot repair again', async () => {
    let runs = 0;
    const plain = defineSpecialist({ name: 'plain', version: '1', run: () => Promise.resolve({ summary: `run ${++runs}`, confidence: 0.5 }) });
    const harness = runFleet({ specialist_hint: 'plain', expected_output_schema: schema, error_policy: { on_format_mismatch: 'adapt' } }, { specialists: [plain] });
    expect((await outcomeOf(harness)).summary).toBe('run 1');
    expect(runs).toBe(1);
  });
});

describe('fleetHandler: unavailable specialists', () => {
  it.each([
    ['no specialist named', { specialist_hint: null }, 'no specialist_hint in the delegation'],
    ['a specialist that throws SpecialistUnavailableError', { task_data: { sim: { unavailable: true } } }, 'sim: scripted as unavailable'],
  ])('%s → a recoverable specialist_unavailable failure, nothing written', async (_label, payload, detail) => {
    const harness = runFleet(payload);
    const outcome = await outcomeOf(harness);
    expect(outcome).toMatchObject({ status: 'failed', error_type: 'specialist_unavailable', error_detail: detail, recoverable: true, confidence: 0 });
    expect(outcome.resources_used).toMatchObject({ specialists_available: ['sim'] });
    expect(harness.batches).toEqual([]);
    expect(harness.warnings).toEqual(['specialist unavailable']);
    expectValidOutcome(outcome);
  });
});

describe('fleetHandler: a busy specialist', () => {
  it('answers throttled, recoverable, when the specialist throws SpecialistThrottledError, and writes nothing', async () => {
    const busy = defineSpecialist({ name: 'busy', version: '1', run: () => Promise.reject(new SpecialistThrottledError('model at capacity: Retry-After 30 s')) });
    const harness = runFleet({ specialist_hint: 'busy' }, { specialists: [busy] });
    const outcome = await outcomeOf(harness);
    expect(outcome).toMatchObject({ status: 'throttled', error_type: 'throttled', error_detail: 'model at capacity: Retry-After 30 s', recoverable: true, confidence: 0 });
    expect(harness.batches).toEqual([]);
    expectValidOutcome(outcome);
  });
});

describe('fleetHandler: explicit rejection', () => {
  it('answers handoff_rejected, recoverable, without running the specialist or writing anything', async () => {
    let ran = false;
    const picky = defineSpecialist({
      name: 'picky',
      version: '1.0.0',
      accepts: ({ taskType }) => (taskType === 'execute_code' ? { accept: false, reason: 'I only review code' } : { accept: true }),
      run: () => {
        ran = true;
        return Promise.resolve({ summary: 'done', confidence: 1 });
      },
    });
    const harness = runFleet({ specialist_hint: 'picky' }, { specialists: [picky] });
    const outcome = await outcomeOf(harness);
    expect(outcome).toMatchObject({
      status: 'failed',
      error_type: 'handoff_rejected',
      error_detail: 'I only review code',
      recoverable: true,
      confidence: 0,
      summary: 'rejected by picky: I only review code',
    });
    expect(ran).toBe(false);
    expect(harness.batches).toEqual([]);
    expectValidOutcome(outcome);
  });

  it('runs a handoff the specialist accepts', async () => {
    const picky = defineSpecialist({ name: 'picky', version: '1.0.0', accepts: () => Promise.resolve({ accept: true as const }), run: () => Promise.resolve({ summary: 'reviewed', confidence: 1 }) });
    const outcome = await outcomeOf(runFleet({ specialist_hint: 'picky', task_type: 'review' }, { specialists: [picky] }));
    expect(outcome).toMatchObject({ status: 'success', summary: 'reviewed' });
  });

  it('rejects as the sim script says, and the script is still checked by the run', async () => {
    const rejected = await outcomeOf(runFleet({ task_data: { sim: { reject: 'not my kind of work' } } }));
    expect(rejected).toMatchObject({ error_type: 'handoff_rejected', error_detail: 'not my kind of work' });
    await expect(runFleet({ task_data: { sim: { reject: 'x', bogus: 1 } } }).step).rejects.toThrow(/task_data\.sim/);
  });

  it.each([
    ['a rejection without a reason', { accept: false, reason: '  ' }],
    ['something else', { yes: true }],
  ])('fails the run on %s, naming the specialist', async (_label, answer) => {
    const odd = defineSpecialist({ name: 'odd', version: '1.0.0', accepts: () => answer as never, run: () => Promise.resolve({ summary: 'x', confidence: 1 }) });
    await expect(runFleet({ specialist_hint: 'odd' }, { specialists: [odd] }).step).rejects.toThrow(
      expect.objectContaining({ code: 'invalid_specialist_result', message: expect.stringContaining('odd: accepts') as string }),
    );
  });
});

describe('fleetHandler: agent verification', () => {
  const sim = { agent_id: 'sim', agent_version: '1.0.0', prompt_hash: promptHashOf(simSpecialist.config) };

  it.each<[string, Partial<DelegationPayloadInput>, string, string]>([
    ['an unknown specialist', { specialist_hint: 'nope' }, 'unknown_agent', 'no agent "nope" in this fleet\'s registry (registered: sim)'],
    ['an unknown pinned agent', { specialist_hint: null, target_agent: { ...sim, agent_id: 'ghost' } }, 'unknown_agent', 'no agent "ghost"'],
    ['a pin naming another agent than the hint', { target_agent: { ...sim, agent_id: 'ghost' } }, 'unknown_agent', 'name different agents'],
    ['another prompt hash', { target_agent: { ...sim, prompt_hash: '0'.repeat(64) } }, 'agent_hash_mismatch', 'prompt hash 000000000000…'],
    ['another version', { target_agent: { ...sim, agent_version: '2.0.0' } }, 'agent_hash_mismatch', 'expects sim 2.0.0'],
  ])('%s → refused, unrecoverable, nothing run or written', async (_label, payload, errorType, detail) => {
    const harness = runFleet(payload);
    const outcome = await outcomeOf(harness);
    expect(outcome).toMatchObject({ status: 'failed', error_type: errorType, recoverable: false, confidence: 0 });
    expect(outcome.error_detail).toContain(detail);
    expect(harness.batches).toEqual([]);
    expect(harness.warnings).toEqual(['delegation refused: agent verification failed']);
    expectValidOutcome(outcome);
  });

  it('runs a delegation pinned to the registered identity', async () => {
    await expect(outcomeOf(runFleet({ target_agent: sim }))).resolves.toMatchObject({ status: 'success' });
    await expect(outcomeOf(runFleet({ specialist_hint: null, target_agent: sim }))).resolves.toMatchObject({ status: 'success' });
  });
});

describe('fleetHandler: errors', () => {
  it.each([
    ['a retryable TierflowError', TierflowError.retryable('busy', { code: 'upstream_busy', kind: 'unavailable' })],
    ['a permanent TierflowError', TierflowError.permanent('no such repository', { code: 'not_found', kind: 'not_found' })],
    ['a plain Error', new Error('socket hang up')],
  ])('lets %s through unchanged, writing nothing', async (_label, error) => {
    const failing = defineSpecialist({ name: 'failing', version: '1', run: () => Promise.reject(error) });
    const harness = runFleet({ specialist_hint: 'failing' }, { specialists: [failing] });
    await expect(harness.step).rejects.toBe(error);
    expect(harness.batches).toEqual([]);
  });

  it('lets the sim transient failure through for the runtime to retry, then succeeds on the next attempt', async () => {
    await expect(runFleet({ task_data: { sim: { fail_times: 1 } } }).step).rejects.toMatchObject({ code: 'sim_transient', retryable: true });
    await expect(outcomeOf(runFleet({ task_data: { sim: { fail_times: 1 } } }, { attempt: 2 }))).resolves.toMatchObject({ status: 'success' });
  });

  it('stops with the abort when cancelled mid-run, writing nothing', async () => {
    const controller = new AbortController();
    const harness = runFleet({ task_data: { sim: { delay_ms: 5000 } } }, { signal: controller.signal });
    controller.abort();
    await expect(harness.step).rejects.toMatchObject({ name: 'AbortError' });
    expect(harness.batches).toEqual([]);
  });

  it.each([
    [{ summary: 'x', confidence: 2 }, 'confidence'],
    [{ confidence: 0.5 }, 'summary'],
    [{ summary: 'x', confidence: 0.5, status: 'timeout' }, 'status'],
    [{ summary: 'x', confidence: 0.5, artifacts: [{ artifact_type: ' ', content: 'x' }] }, 'artifacts.0.artifact_type'],
  ])('refuses an invalid result %j as a permanent error naming %s', async (result, field) => {
    const harness = runFleet({ specialist_hint: 'fixed' }, { specialists: [fixed(result as unknown as SpecialistResult)] });
    const error: unknown = await harness.step.catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'invalid_specialist_result', retryable: false });
    expect((error as Error).message).toContain(field);
    expect(harness.batches).toEqual([]);
  });
});
