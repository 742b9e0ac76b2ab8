import { chown, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TierflowError } from '@tierflow/protocol';
import { abortError } from '../abortable-delay.js';
import { defineSpecialist, type Specialist, type SpecialistInput, type SpecialistResult } from '../specialist.js';
import { CONFINE_SETUP_FAILED, CONFINE_SETUP_MARK, confinedPrefix, releaseRunUid, signalOfStatus, takeRunUid, type Confinement } from './confine.js';
import { gradeRun } from './grade.js';
import { JS_HARNESS, jsCandidateFile, jsCommand } from './js-harness.js';
import { resolveCodeRunnerLimits, wallTimeFor, type CodeRunnerLimits, type CodeRunnerOptions } from './limits.js';
import { PYTHON_HARNESS, pythonCommand } from './python-harness.js';
import { runChild, type ChildRun } from './run-child.js';
import { AS_NOBODY, NOBODY, sandbox, type Sandbox } from './sandbox.js';
import { CODE_RUNNER_LANGUAGES, parseCodeRunnerTask, type CodeRunnerTask } from './task-data.js';

/**
 * A specialist that needs no model: it runs a candidate function against the test cases of its
 * subtask, in a child process with CPU, memory, wall-clock, output, file and process limits, no
 * network, and (where the Fleet is root) namespaces and a user of its own, so that nothing it
 * starts outlives the run or reaches another run, and reports a `test_result` artifact. `success` when every case
 * passes; otherwise `failed` with one of `CODE_RUNNER_ERROR_TYPES`. See docs/extending.md#the-code-runner.
 *
 * ```ts
 * registry.register(codeRunnerSpecialist({ cpuSeconds: 2, memoryMb: 128 }));
 * ```
 *
 * @throws TierflowError (permanent, code `invalid_specialist`) for bad options.
 */
export function codeRunnerSpecialist(options: CodeRunnerOptions = {}): Specialist {
  const limits = resolveCodeRunnerLimits(options);
  const { cpuSeconds, memoryMb, wallMs, maxOutputBytes, fileMb, maxProcesses } = limits;
  return defineSpecialist({
    name: limits.name,
    version: '1.0.0',
    // The limits decide what passes, so they are part of the agent's identity.
    config: { kind: 'code-runner', languages: [...CODE_RUNNER_LANGUAGES], limits: { cpuSeconds, memoryMb, wallMs, maxOutputBytes, fileMb, maxProcesses } },
    ...(limits.maxConcurrent === undefined ? {} : { maxConcurrent: limits.maxConcurrent }),
    run: (input) => runCandidate(limits, input),
  });
}

async function runCandidate(limits: CodeRunnerLimits, input: SpecialistInput): Promise<SpecialistResult> {
  const task = parseCodeRunnerTask(input.taskData);
  const box = await sandbox();
  if (input.signal.aborted) throw abortError(input.signal);
  if (task.language === 'python' && box.python === null) {
    // Permanent rather than unavailable: no other code runner is known to do better, and a retry here cannot.
    throw TierflowError.permanent('code-runner: python is not available on this Fleet host (no python3 on PATH)', { code: 'language_unavailable' });
  }
  const confinement = box.confined[task.language] ? box.confinement : null;
  if (confinement === null) warnUnconfined(task.language);
  const wall = wallTimeFor(limits, input.deadline, Date.now());
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'tierflow-code-')));
  const uid = confinement === null ? null : takeRunUid();
  try {
    const grade = { language: task.language, tests: task.tests, limits, wall, dir, confined: confinement !== null };
    if (wall.ms === 0) return gradeRun(grade, TOO_LATE);
    const command = await prepare(box, dir, task, limits);
    const isolation = confinement === null || uid === null ? unconfinedPrefix(box, task.language) : confined(confinement, dir, uid, limits);
    const run = await runChild({
      command: [...isolation, ...command],
      cwd: dir,
      // Nothing of the Fleet's environment (keys, endpoints) reaches the candidate.
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, TMPDIR: dir, LANG: 'C.UTF-8' },
      stdin: JSON.stringify({ entry: task.entry, args: task.tests.map((test) => test.args) }),
      wallMs: wall.ms,
      maxOutputBytes: limits.maxOutputBytes,
      signal: input.signal,
    });
    return gradeRun(grade, confinement === null ? run : confinedRun(run));
  } finally {
    if (uid !== null) releaseRunUid(uid);
    await rm(dir, { recursive: true, force: true });
  }
}

/** The run that never started: the deadline had passed already. */
const TOO_LATE: ChildRun = { lines: [], outputTail: '', exitCode: null, exitSignal: null, stoppedBy: 'wall', outOfMemory: false, elapsedMs: 0 };

function confined(confinement: Confinement, dir: string, uid: number, limits: CodeRunnerLimits): string[] {
  return confinedPrefix(confinement, { dir, uid, fileBytes: limits.fileMb * 1024 * 1024, maxProcesses: limits.maxProcesses });
}

/** Where the kernel cannot confine the run: a network namespace and `nobody`, where the host allows them. */
function unconfinedPrefix(box: Sandbox, language: CodeRunnerTask['language']): string[] {
  return [...(box.netns ?? []), ...(box.asNobody[language] ? AS_NOBODY : [])];
}

/**
 * A confined run as the grader reads it: the namespace's first process reports a signal as 128 +
 * its number. A run that never got past setting up its namespace is this host's failure, not the code's.
 *
 * @throws TierflowError (retryable, code `code_runner_spawn_failed`) when setting up failed.
 */
function confinedRun(run: ChildRun): ChildRun {
  if (run.exitCode === CONFINE_SETUP_FAILED && run.lines.length === 0 && run.outputTail.includes(CONFINE_SETUP_MARK)) {
    throw TierflowError.retryable(`code-runner: could not confine the run: ${run.outputTail.trim()}`, { code: 'code_runner_spawn_failed' });
  }
  const signal = run.exitSignal ?? signalOfStatus(run.exitCode);
  return signal === run.exitSignal ? run : { ...run, exitCode: null, exitSignal: signal };
}

const warned = new Set<string>();

/** Says once per process and language that this host runs code without the kernel's confinement. */
function warnUnconfined(language: string): void {
  if (warned.has(language)) return;
  warned.add(language);
  process.emitWarning(
    `code-runner: ${language} runs are not confined by the kernel on this host (it needs root and util-linux: unshare, mount, prlimit, setpriv); ` +
      'a run may leave processes behind and reach what the Fleet user can (docs/extending.md#the-code-runner)',
    { code: 'TIERFLOW_CODE_RUNNER_UNCONFINED' },
  );
}

/** Writes the harness and the candidate into `dir`; returns the command that runs them. */
async function prepare(box: Sandbox, dir: string, task: CodeRunnerTask, limits: CodeRunnerLimits): Promise<string[]> {
  // Unconfined, the child, run as nobody, owns its directory (its HOME and TMPDIR) and nothing
  // else; confined, it gets a copy on a tmpfs of its own, and this one stays the Fleet's.
  if (!box.confined[task.language] && box.asNobody[task.language]) await chown(dir, NOBODY, NOBODY);
  switch (task.language) {
    case 'javascript':
      await writeFile(join(dir, 'harness.cjs'), JS_HARNESS);
      await writeFile(join(dir, 'candidate.cjs'), jsCandidateFile(task.code, task.entry));
      return jsCommand(box, dir, limits);
    case 'python':
      await writeFile(join(dir, 'harness.py'), PYTHON_HARNESS);
      await writeFile(join(dir, 'candidate.py'), task.code);
      // Checked by the caller; the compiler cannot see it.
      return pythonCommand(box.python ?? 'python3', dir, limits);
  }
}
