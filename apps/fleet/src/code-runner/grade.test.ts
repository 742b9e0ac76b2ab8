import { describe, expect, it } from 'vitest';
import { gradeRun, type GradeRequest } from './grade.js';
import { resolveCodeRunnerLimits } from './limits.js';
import type { ChildRun } from './run-child.js';

const request: GradeRequest = {
  language: 'javascript',
  tests: [
    { args: [1], expected: 2, name: 'one' },
    { args: [2], expected: { v: 4 } },
  ],
  limits: resolveCodeRunnerLimits(),
  wall: { ms: 10_000, byDeadline: false },
  dir: '/tmp/run-1',
  confined: true,
};
const line = (event: object) => JSON.stringify(event);
const ok = (i: number, json: string) => line({ t: 'case', i, ok: true, json, ms: 1.234 });
const run = (overrides: Partial<ChildRun>): ChildRun => ({ lines: [], outputTail: '', exitCode: 0, exitSignal: null, stoppedBy: null, outOfMemory: false, elapsedMs: 12.3, ...overrides });
const cases = (result: { artifacts?: readonly { content: string }[] | undefined }) => (JSON.parse(result.artifacts?.[0]?.content ?? 'null') as { cases: Record<string, unknown>[] }).cases;
const done = line({ t: 'done' });

describe('gradeRun', () => {
  it('succeeds when every case gives its expected value, compared as JSON', () => {
    const result = gradeRun(request, run({ lines: [ok(0, '2'), ok(1, '{"v":4}'), done] }));
    expect(result).toMatchObject({ status: 'success', summary: '2/2 tests passed', confidence: 1, resources_used: { wall_ms: 12, language: 'javascript', confined: true } });
    expect(result.artifacts?.[0]?.metadata).toEqual({ passed: 2, total: 2, language: 'javascript' });
    expect(cases(result)).toEqual([
      { name: 'one', passed: true, expected: 2, actual: 2, ms: 1.23 },
      { name: 'test 2', passed: true, expected: { v: 4 }, actual: { v: 4 }, ms: 1.23 },
    ]);
  });

  it('fails tests_failed naming the first differing case, with the run directory taken out of errors', () => {
    const error = line({ t: 'case', i: 1, ok: false, kind: 'error', error: 'Error: boom\n    at f (/tmp/run-1/candidate.cjs:1:2)', ms: 1 });
    const result = gradeRun(request, run({ lines: [ok(0, '3'), error, done] }));
    expect(result).toMatchObject({ status: 'failed', error_type: 'tests_failed', recoverable: false, confidence: 0, summary: '0/2 tests passed: one: expected 2, got 3' });
    expect(cases(result)[1]).toMatchObject({ passed: false, error: 'Error: boom\n    at f (candidate.cjs:1:2)' });
  });

  it('reports the limits first: wall clock, deadline, CPU, output, memory', () => {
    const partial = [ok(0, '2')];
    expect(gradeRun(request, run({ lines: partial, stoppedBy: 'wall' }))).toMatchObject({
      error_type: 'time_limit_exceeded',
      error_detail: 'wall-clock limit of 10000 ms exceeded',
      recoverable: false,
      confidence: 0.5,
    });
    expect(gradeRun({ ...request, wall: { ms: 800, byDeadline: true } }, run({ stoppedBy: 'wall' }))).toMatchObject({ error_type: 'time_limit_exceeded', recoverable: true });
    expect(gradeRun(request, run({ lines: partial, exitSignal: 'SIGXCPU' }))).toMatchObject({ error_type: 'time_limit_exceeded', error_detail: 'CPU limit of 5 s exceeded' });
    expect(gradeRun(request, run({ stoppedBy: 'output', exitSignal: 'SIGKILL' }))).toMatchObject({ error_type: 'output_limit_exceeded' });
    expect(gradeRun(request, run({ outOfMemory: true, exitSignal: 'SIGABRT' }))).toMatchObject({ error_type: 'memory_limit_exceeded' });
    expect(gradeRun(request, run({ exitSignal: 'SIGKILL' }))).toMatchObject({ error_type: 'memory_limit_exceeded' });
    expect(gradeRun(request, run({ exitSignal: 'SIGXFSZ' }))).toMatchObject({ error_type: 'output_limit_exceeded', error_detail: 'wrote a file over 16 MiB' });
    // Words on stderr alone, from a run that finished, are the code's own.
    expect(gradeRun(request, run({ lines: [ok(0, '3'), ok(1, '{"v":4}'), done], outOfMemory: true }))).toMatchObject({ error_type: 'tests_failed' });
    const result = gradeRun(request, run({ lines: partial, stoppedBy: 'wall' }));
    expect(cases(result)[1]).toEqual({ name: 'test 2', passed: false, expected: { v: 4 }, error: 'not run: wall-clock limit of 10000 ms exceeded' });
  });

  it('says network_denied when the guard refused a call, even one the code caught', () => {
    const denied = line({ t: 'denied', what: 'net.Socket.connect' });
    expect(gradeRun(request, run({ lines: [denied, ok(0, '5'), ok(1, '{"v":4}'), done] }))).toMatchObject({ error_type: 'network_denied', error_detail: 'network access denied: net.Socket.connect' });
    expect(gradeRun(request, run({ lines: [denied, line({ t: 'fatal', kind: 'error', error: 'Error: x' })], exitCode: 70 }))).toMatchObject({ error_type: 'network_denied' });
    // A call refused by a code that still passes everything is no failure.
    expect(gradeRun(request, run({ lines: [denied, ok(0, '2'), ok(1, '{"v":4}'), done] }))).toMatchObject({ status: 'success' });
  });

  it('maps load failures, fatal errors and memory errors in cases', () => {
    expect(gradeRun(request, run({ lines: [line({ t: 'load', kind: 'syntax', error: 'SyntaxError: x (candidate.cjs:1)' }), done] }))).toMatchObject({
      error_type: 'syntax_error',
      summary: '0/2 tests passed: SyntaxError: x (candidate.cjs:1)',
    });
    expect(gradeRun(request, run({ lines: [line({ t: 'load', kind: 'error', error: 'f is not a function the code defines' }), done] }))).toMatchObject({ error_type: 'runtime_error' });
    expect(gradeRun(request, run({ lines: [ok(0, '2'), line({ t: 'fatal', kind: 'error', error: 'Error: later' })], exitCode: 70 }))).toMatchObject({
      error_type: 'runtime_error',
      error_detail: 'Error: later',
    });
    const memory = line({ t: 'case', i: 1, ok: false, kind: 'memory', error: 'MemoryError', ms: 3 });
    expect(gradeRun(request, run({ lines: [ok(0, '2'), memory, done] }))).toMatchObject({ error_type: 'memory_limit_exceeded' });
  });

  it('says runtime_error when the process ended early or the result channel was garbled', () => {
    expect(gradeRun(request, run({ lines: [ok(0, '2')], exitCode: 0, outputTail: 'bye\n' }))).toMatchObject({
      error_type: 'runtime_error',
      error_detail: 'the javascript process ended (exit code 0) before every case ran\nbye',
    });
    expect(gradeRun(request, run({ lines: ['{"t":"case","i":0,"ok":true}', ok(0, '2'), ok(1, '{"v":4}'), done] }))).toMatchObject({
      error_type: 'runtime_error',
      error_detail: '1 unreadable line(s) on the result channel',
    });
  });

  it('keeps long values and output bounded', () => {
    const big = JSON.stringify('y'.repeat(5_000));
    const result = gradeRun(request, run({ lines: [ok(0, big), ok(1, '{"v":4}'), done], outputTail: 'z'.repeat(1_500) }));
    const [first] = cases(result);
    expect(String(first?.actual).length).toBeLessThan(1_100);
    const content = JSON.parse(result.artifacts?.[0]?.content ?? '{}') as { output: string };
    expect(content.output.length).toBeLessThan(1_100);
  });
});
