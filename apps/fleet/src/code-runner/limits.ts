import { TierflowError } from '@tierflow/protocol';
import { z } from 'zod';
import { specialistNameSchema } from '../specialist.js';

/** The name to put in `specialist_hint` to reach the code runner, unless its options rename it. */
export const CODE_RUNNER_SPECIALIST = 'code-runner';

const whole = (min: number, max: number) => z.int().min(min).max(max);

/**
 * The options of the code runner, checked here and nowhere else. Each limit applies to one run:
 * one child process that runs every test case of a subtask.
 */
export const codeRunnerOptionsSchema = z.strictObject({
  /** What `specialist_hint` routes by. */
  name: specialistNameSchema.default(CODE_RUNNER_SPECIALIST),
  /** Runs this process admits at once; each is a child process. */
  maxConcurrent: whole(1, 1_000).optional(),
  /** CPU seconds per run (rlimits count whole seconds). */
  cpuSeconds: whole(1, 60).default(5),
  /** Memory per run, in MiB. Below 64 Node itself may fail to start. */
  memoryMb: whole(64, 8_192).default(256),
  /** Wall-clock time per run, in ms; never past the delegation's deadline either. */
  wallMs: whole(100, 600_000).default(10_000),
  /** Bytes the child may write in all (results, its stdout and stderr) before it is stopped. */
  maxOutputBytes: whole(1_024, 16 * 1024 * 1024).default(1024 * 1024),
  /** The largest file a run may write, in MiB (RLIMIT_FSIZE); confined, also the size of each tmpfs it can write to. */
  fileMb: whole(1, 1_024).default(16),
  /** Processes and threads a confined run may have at once (RLIMIT_NPROC of its own user); Node itself takes about a dozen. */
  maxProcesses: whole(16, 4_096).default(64),
});

/** Options of {@link codeRunnerSpecialist}; every field has a default. */
export type CodeRunnerOptions = z.input<typeof codeRunnerOptionsSchema>;
/** The options with defaults filled in. */
export type CodeRunnerLimits = z.output<typeof codeRunnerOptionsSchema>;

/**
 * Pure: the options with their defaults.
 *
 * @throws TierflowError (permanent, code `invalid_specialist`) naming each bad option.
 */
export function resolveCodeRunnerLimits(options: CodeRunnerOptions = {}): CodeRunnerLimits {
  const parsed = codeRunnerOptionsSchema.safeParse(options);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.map(String).join('.') || 'options'}: ${issue.message}`);
  throw TierflowError.permanent(`code-runner: invalid options: ${problems.join('; ')}`, { code: 'invalid_specialist' });
}

/** How long one run may take, and whether the delegation's deadline, not the runner's own limit, set it. */
export interface WallTime {
  readonly ms: number;
  readonly byDeadline: boolean;
}

/** Pure: the wall-clock budget of a run starting `now`: the limit, cut to what is left before `deadline` (never below 0). */
export function wallTimeFor(limits: Pick<CodeRunnerLimits, 'wallMs'>, deadline: number | null, now: number): WallTime {
  if (deadline === null || deadline - now >= limits.wallMs) return { ms: limits.wallMs, byDeadline: false };
  return { ms: Math.max(0, Math.floor(deadline - now)), byDeadline: true };
}
