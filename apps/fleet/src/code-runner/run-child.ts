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

/**
 * Runs the child in a process group of its own and waits for it to end. The wall-clock limit and
 * the output limit kill the whole group; so does `signal`, which then rejects with its reason.
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
    let stoppedBy: ChildRun['stoppedBy'] = null;
    let outputBytes = 0;
    let results = '';
    let tail = '';
    let outOfMemory = false;
    let spawnError: Error | undefined;

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
    (child.stdio[3] as Readable | null)?.on('data', (chunk: Buffer) => {
      count(chunk.length);
      if (outputBytes <= request.maxOutputBytes) results += chunk.toString('utf8');
    });
    // The child may exit before reading its input.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(request.stdin);

    const timer = setTimeout(() => stop('wall'), request.wallMs);
    const onAbort = (): void => killGroup();
    request.signal.addEventListener('abort', onAbort, { once: true });
    // Whatever the leader left behind dies with it.
    child.on('exit', killGroup);
    child.on('error', (error) => {
      spawnError = error;
    });
    child.on('close', (exitCode, exitSignal) => {
      clearTimeout(timer);
      request.signal.removeEventListener('abort', onAbort);
      if (request.signal.aborted) return reject(abortError(request.signal));
      if (spawnError !== undefined) {
        return reject(TierflowError.retryable(`code-runner: could not start ${command}: ${spawnError.message}`, { code: 'code_runner_spawn_failed', cause: spawnError }));
      }
      const lines = results.split('\n').filter((line) => line !== '');
      resolve({ lines, outputTail: tail, exitCode, exitSignal, stoppedBy, outOfMemory, elapsedMs: performance.now() - started });
    });
  });
}
