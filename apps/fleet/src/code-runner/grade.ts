import type { SpecialistResult } from '../specialist.js';
import { readHarnessReport, type FailureKind, type HarnessReport } from './harness-events.js';
import type { CodeRunnerLimits, WallTime } from './limits.js';
import { boundedValue, jsonEqual, truncate } from './report-values.js';
import type { ChildRun } from './run-child.js';
import type { CodeRunnerLanguage, CodeRunnerTestCase } from './task-data.js';

/** The `error_type` codes of the code runner's own; a failed run reports exactly one. */
export const CODE_RUNNER_ERROR_TYPES = {
  /** The code ran and some test cases did not give the expected value. */
  testsFailed: 'tests_failed',
  /** The run passed its CPU or wall-clock limit, or the delegation's deadline. */
  timeLimitExceeded: 'time_limit_exceeded',
  memoryLimitExceeded: 'memory_limit_exceeded',
  outputLimitExceeded: 'output_limit_exceeded',
  /** The code tried to reach the network, which it may not. */
  networkDenied: 'network_denied',
  /** The code does not compile. */
  syntaxError: 'syntax_error',
  /** The code failed outside the test cases: while loading, without its entry function, or by ending the process. */
  runtimeError: 'runtime_error',
} as const;
export type CodeRunnerErrorType = (typeof CODE_RUNNER_ERROR_TYPES)[keyof typeof CODE_RUNNER_ERROR_TYPES];

/** One test case in the `test_result` artifact. */
export interface CaseReport {
  readonly name: string;
  readonly passed: boolean;
  readonly expected: unknown;
  readonly actual?: unknown;
  readonly error?: string;
  /** Left out for a case that never ran. */
  readonly ms?: number;
}

/** What was run, for grading. */
export interface GradeRequest {
  readonly language: CodeRunnerLanguage;
  readonly tests: readonly CodeRunnerTestCase[];
  readonly limits: CodeRunnerLimits;
  readonly wall: WallTime;
  /** The run's directory, taken out of messages so reports read the same from run to run. */
  readonly dir: string;
  /** Whether the kernel confined the run (namespaces and a user of its own), reported in `resources_used`. */
  readonly confined: boolean;
}

interface Failure {
  readonly errorType: CodeRunnerErrorType;
  readonly detail: string;
  readonly recoverable: boolean;
}

const KIND_ERROR_TYPES = {
  syntax: CODE_RUNNER_ERROR_TYPES.syntaxError,
  error: CODE_RUNNER_ERROR_TYPES.runtimeError,
  memory: CODE_RUNNER_ERROR_TYPES.memoryLimitExceeded,
  network: CODE_RUNNER_ERROR_TYPES.networkDenied,
} as const satisfies Record<FailureKind, CodeRunnerErrorType>;

/** Pure: the specialist's result for a finished run. */
export function gradeRun(request: GradeRequest, run: ChildRun): SpecialistResult {
  const clean = (text: string): string => truncate(text.replaceAll(`${request.dir}/`, '').replaceAll(request.dir, '.'));
  const report = readHarnessReport(run.lines);
  const runFailure = failureOfRun(request, run, report, clean);
  const cases = request.tests.map((test, i) => caseReport(test, i, report, runFailure, clean));
  const passed = cases.filter((c) => c.passed).length;
  const total = cases.length;
  const output = run.outputTail.trim() === '' ? {} : { output: clean(run.outputTail) };
  const artifact = {
    artifact_type: 'test_result',
    content: JSON.stringify({ passed, total, cases, ...output }),
    metadata: { passed, total, language: request.language },
  };
  const base = { confidence: passed / total, artifacts: [artifact], resources_used: { wall_ms: Math.round(run.elapsedMs), language: request.language, confined: request.confined } };
  const failure = runFailure ?? (passed === total ? null : caseFailure(cases, report));
  if (failure === null) return { ...base, status: 'success', summary: `${passed}/${total} tests passed` };
  return {
    ...base,
    status: 'failed',
    summary: `${passed}/${total} tests passed: ${firstLine(failure.detail)}`,
    error_type: failure.errorType,
    error_detail: failure.detail,
    recoverable: failure.recoverable,
  };
}

/** What stopped the run as a whole, if anything did; the limits come first, as the likeliest cause of all else. */
function failureOfRun(request: GradeRequest, run: ChildRun, report: HarnessReport, clean: (text: string) => string): Failure | null {
  const fail = (errorType: CodeRunnerErrorType, detail: string, recoverable = false): Failure => ({ errorType, detail: clean(detail), recoverable });
  if (run.stoppedBy === 'wall') {
    // Cut short by the sender's deadline, the code never had its full time: another try may pass.
    return request.wall.byDeadline
      ? fail(CODE_RUNNER_ERROR_TYPES.timeLimitExceeded, `stopped at the delegation's deadline, after ${request.wall.ms} ms`, true)
      : fail(CODE_RUNNER_ERROR_TYPES.timeLimitExceeded, `wall-clock limit of ${request.limits.wallMs} ms exceeded`);
  }
  if (run.exitSignal === 'SIGXCPU') return fail(CODE_RUNNER_ERROR_TYPES.timeLimitExceeded, `CPU limit of ${request.limits.cpuSeconds} s exceeded`);
  if (run.stoppedBy === 'output') return fail(CODE_RUNNER_ERROR_TYPES.outputLimitExceeded, `wrote more than ${request.limits.maxOutputBytes} bytes`);
  // RLIMIT_FSIZE: Node dies of it; Python ignores the signal and its write fails instead.
  if (run.exitSignal === 'SIGXFSZ') return fail(CODE_RUNNER_ERROR_TYPES.outputLimitExceeded, `wrote a file over ${request.limits.fileMb} MiB`);
  // V8 aborts when the heap is full; a SIGKILL this side did not send is the kernel's OOM killer.
  if ((run.outOfMemory && !report.done) || run.exitSignal === 'SIGKILL') return fail(CODE_RUNNER_ERROR_TYPES.memoryLimitExceeded, `memory limit of ${request.limits.memoryMb} MB exceeded`);
  const denied = report.denied[0];
  if (denied !== undefined && (report.fatal !== null || report.load !== null || !report.done)) return fail(CODE_RUNNER_ERROR_TYPES.networkDenied, `network access denied: ${denied}`);
  if (report.load !== null) return fail(KIND_ERROR_TYPES[report.load.kind], report.load.error);
  if (report.fatal !== null) return fail(KIND_ERROR_TYPES[report.fatal.kind], report.fatal.error);
  if (report.garbled > 0) return fail(CODE_RUNNER_ERROR_TYPES.runtimeError, `${report.garbled} unreadable line(s) on the result channel`);
  if (!report.done) {
    const how = run.exitSignal === null ? `exit code ${run.exitCode ?? 'unknown'}` : `signal ${run.exitSignal}`;
    return fail(CODE_RUNNER_ERROR_TYPES.runtimeError, [`the ${request.language} process ended (${how}) before every case ran`, run.outputTail.trim()].join('\n').trim());
  }
  return null;
}

/** Why the run failed when every case ran but some did not pass. */
function caseFailure(cases: readonly CaseReport[], report: HarnessReport): Failure {
  const denied = report.denied[0];
  if (denied !== undefined) return { errorType: CODE_RUNNER_ERROR_TYPES.networkDenied, detail: `network access denied: ${denied}`, recoverable: false };
  const failed = cases.find((c) => !c.passed);
  const outOfMemory = [...report.cases.values()].some((c) => !c.ok && c.kind === 'memory');
  const detail = failed === undefined ? 'a test case failed' : describeFailure(failed);
  return { errorType: outOfMemory ? CODE_RUNNER_ERROR_TYPES.memoryLimitExceeded : CODE_RUNNER_ERROR_TYPES.testsFailed, detail, recoverable: false };
}

function describeFailure(failed: CaseReport): string {
  if (failed.error !== undefined) return `${failed.name}: ${failed.error}`;
  return truncate(`${failed.name}: expected ${JSON.stringify(failed.expected)}, got ${JSON.stringify(failed.actual)}`);
}

function caseReport(test: CodeRunnerTestCase, i: number, report: HarnessReport, runFailure: Failure | null, clean: (text: string) => string): CaseReport {
  const name = test.name ?? `test ${i + 1}`;
  const expected = boundedValue(test.expected);
  const event = report.cases.get(i);
  if (event === undefined) return { name, passed: false, expected, error: `not run: ${firstLine(runFailure?.detail ?? 'the run ended first')}` };
  const ms = Math.round(event.ms * 100) / 100;
  if (!event.ok) return { name, passed: false, expected, error: clean(event.error), ms };
  const actual = parseJson(event.json);
  if (actual === UNREADABLE) return { name, passed: false, expected, error: 'the returned value could not be read back', ms };
  return { name, passed: jsonEqual(actual, test.expected), expected, actual: boundedValue(actual), ms };
}

const UNREADABLE = Symbol('unreadable');

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return UNREADABLE;
  }
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? text;
}
