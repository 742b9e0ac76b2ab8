import { readdir, readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { runChild, type ChildRequest } from './run-child.js';

// A process that leaves the child's process group and holds its pipes (stderr and the result
// channel): the kill of the group misses it, and the pipes stay open for as long as it lives. The
// substitution returns once it has left the group: its stdout, the substitution's pipe, is closed then.
const LINGER = ['sleep', `9.${process.pid}`];
const lingering = `left=$(setsid sh -c 'exec ${LINGER.join(' ')} >/dev/null' &); echo started >&3`;

async function lingerers(): Promise<number[]> {
  const wanted = `${LINGER.join('\0')}\0`;
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (/^\d+$/.test(entry) && (await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')) === wanted) found.push(Number(entry));
  }
  return found;
}

afterEach(async () => {
  for (const pid of await lingerers()) process.kill(pid, 'SIGKILL');
});

const request = (script: string, overrides: Partial<ChildRequest> = {}): ChildRequest => ({
  command: ['sh', '-c', script],
  cwd: process.cwd(),
  env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  stdin: '',
  wallMs: 5_000,
  maxOutputBytes: 1024 * 1024,
  signal: new AbortController().signal,
  ...overrides,
});

describe('runChild', () => {
  it('ends when the child exits, though a process it left holds the pipes', async () => {
    const started = Date.now();
    const run = await runChild(request(`${lingering}; exit 3`));
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(run).toMatchObject({ lines: ['started'], exitCode: 3, exitSignal: null, stoppedBy: null });
  });

  it('ends at the wall limit, though a process it left holds the pipes', async () => {
    const started = Date.now();
    const run = await runChild(request(`${lingering}; while :; do :; done`, { wallMs: 500 }));
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(run).toMatchObject({ lines: ['started'], stoppedBy: 'wall', exitSignal: 'SIGKILL' });
  });

  it('rejects with the reason at once on cancellation, though a process it left holds the pipes', async () => {
    const controller = new AbortController();
    const reason = new Error('cancelled by the test');
    const started = Date.now();
    const running = runChild(request(`${lingering}; while :; do :; done`, { signal: controller.signal }));
    setTimeout(() => controller.abort(reason), 200);
    await expect(running).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('fails to start a command that does not exist: retryable', async () => {
    await expect(runChild({ ...request(''), command: ['no-such-command-here'] })).rejects.toMatchObject({ code: 'code_runner_spawn_failed', retryable: true });
  });
});
