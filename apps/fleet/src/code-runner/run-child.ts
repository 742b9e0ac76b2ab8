import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { TierflowError } from '@tierflow/protocol';
import { abortError } from '../abortable-delay.js';

/** How to start one run. */
export interface ChildRequest {
  /** The command and its arguments; the first is looked up on PATH. */
  readonly command: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** Written to the child's stdin, which is then closed. */
  readonly stdin: string;
  readonly wallMs: number;
  /** Bytes the child may write on fd 1, 2 and 3 together before it is stopped. */
  readonly maxOutputBytes: number;
  readonly signal: AbortSignal;
}

/** What came back from a run. */
export interface ChildRun {
  /** The lines the harness wrote on fd 3, its result channel. */
  readonly lines: readonly string[];
  /** The last bytes of the child's stdout and stderr together, for diagnostics. */
  readonly outputTail: string;
  readonly exitCode: number | null;
  readonly exitSignal: NodeJS.Signals | null;
  /** Set when this side stopped the child: wall clock or output limit. */
  readonly stoppedBy: 'wall' | 'output' | null;
  /** Whether stderr said the runtime ran out of memory (V8 aborts rather than throws); the grader trusts it only when the run broke off. */
  readonly outOfMemory: boolean;
  readonly elapsedMs: number;
}

const TAIL_CHARS = 2_000;
const OUT_OF_MEMORY = /out of memory|Allocation failed/i;
/** How long, once the child has exited, its pipes may take to give their last bytes (what it wrote is already in them). */
const DRAIN_MS = 250;

/**
 * Runs the child in a process group of its own and waits for it to exit. The wall-clock limit,
 * the output limit and `signal` (which then rejects with its reason) kill the whole group.
 * The run ends when the child exits, not when its pipes close: what it wrote before is read for
 * at most {@link DRAIN_MS} more, and a process it left behind holding the pipes (one that left
 * the group, which a PID namespace of its own kills with its first process) keeps nothing waiting.
 * Stdout and stderr are drained and only their tail kept, so a chatty child cannot fill memory.
 *
 * @throws TierflowError (retryable, code `code_runner_spawn_failed`) when the child cannot start.
 */
export function runChild(request: ChildRequest): Promise<ChildRun> {
  return new Promise<ChildRun>((resolve, reject) => {
    const [command, ...args] = request.command;
    if (command === undefined) return reject(TierflowError.permanent('code-runner: empty command', { code: 'code_runner_spawn_failed' }));
    if (request.signal.aborted) return reject(abortError(request.signal));
    const started = performance.now();
    // detached: the child leads a new process group, so one kill reaches anything it started.
    const child = spawn(command, args, { cwd: request.cwd, env: request.env, detached: true, stdio: ['pipe', 'pipe', 'pipe', 'pipe'] });
    const results = child.stdio[3] as Readable | null;
    const pipes = [child.stdout, child.stderr, results].filter((pipe): pipe is Readable => pipe !== null);
    let stoppedBy: ChildRun['stoppedBy'] = null;
    let outputBytes = 0;
    let resultText = '';
    let tail = '';
    let outOfMemory = false;
    let exited: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    let settled = false;

    const killGroup = (): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const stop = (why: 'wall' | 'output'): void => {
      stoppedBy ??= why;
      killGroup();
    };
    const count = (bytes: number): void => {
      outputBytes += bytes;
      if (outputBytes > request.maxOutputBytes) stop('output');
    };
    const onOutput = (chunk: Buffer, stream: 'stdout' | 'stderr'): void => {
      count(chunk.length);
      const text = chunk.toString('utf8');
      if (stream === 'stderr' && OUT_OF_MEMORY.test(tail.slice(-64) + text)) outOfMemory = true;
      tail = (tail + text).slice(-TAIL_CHARS);
    };
    child.stdout?.on('data', (chunk: Buffer) => onOutput(chunk, 'stdout'));
    child.stderr?.on('data', (chunk: Buffer) => onOutput(chunk, 'stderr'));
    results?.on('data', (chunk: Buffer) => {
      count(chunk.length);
      if (outputBytes <= request.maxOutputBytes) resultText += chunk.toString('utf8');
    });
    // The child may exit before reading its input.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(request.stdin);

    const timer = setTimeout(() => stop('wall'), request.wallMs);
    const onAbort = (): void => killGroup();
    request.signal.addEventListener('abort', onAbort, { once: true });

    const finish = (): void => {
      if (settled || exited === null) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(drain);
      request.signal.removeEventListener('abort', onAbort);
      for (const pipe of pipes) pipe.destroy();
      if (request.signal.aborted) return reject(abortError(request.signal));
      const lines = resultText.split('\n').filter((line) => line !== '');
      resolve({ lines, outputTail: tail, exitCode: exited.code, exitSignal: exited.signal, stoppedBy, outOfMemory, elapsedMs: performance.now() - started });
    };
    let drain: NodeJS.Timeout | undefined;
    child.on('exit', (code, signal) => {
      exited = { code, signal };
      // Whatever the child left in its group dies with it.
      killGroup();
      drain = setTimeout(finish, DRAIN_MS);
    });
    // Every pipe at its end: nothing more to read.
    child.on('close', finish);
    child.on('error', (error) => {
      if (settled || child.pid !== undefined) return;
      settled = true;
      clearTimeout(timer);
      request.signal.removeEventListener('abort', onAbort);
      if (request.signal.aborted) return reject(abortError(request.signal));
      reject(TierflowError.retryable(`code-runner: could not start ${command}: ${error.message}`, { code: 'code_runner_spawn_failed', cause: error }));
    });
  });
}
