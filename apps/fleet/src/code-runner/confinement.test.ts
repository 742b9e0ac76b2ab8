import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmod, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { specialistInput } from '../test-input.js';
import { codeRunnerSpecialist } from './code-runner.js';
import { sandbox } from './sandbox.js';

// The attacks of a hostile Python candidate on the host and on other runs. The kernel confines
// a run only where the Fleet is root and may create namespaces (as in CI), asked here directly.
const box = await sandbox();
const namespaces = (() => {
  try {
    execFileSync('unshare', ['--pid', '--fork', '--mount', '--mount-proc', '--net', '--ipc', 'true'], { stdio: 'ignore', timeout: 5_000 });
    return true;
  } catch {
    return false;
  }
})();
const canConfine = process.getuid?.() === 0 && namespaces;
if (!canConfine || box.python === null) console.warn('code-runner confinement tests skipped: they need root, namespaces (unshare) and python3');

// CI runs as root with util-linux and python3 (.ci/run installs them): there a skip would hide a
// runner that no longer confines, so it fails instead.
it.runIf(process.env.CI === 'true')('CI confines runs: root, namespaces and python3 are there', () => {
  expect({ root: process.getuid?.() === 0, namespaces, python: box.python !== null }).toEqual({ root: true, namespaces: true, python: true });
});

type Case = { args: unknown[]; expected: unknown };
type Report = { cases: { passed: boolean; actual?: unknown; error?: string }[] };
const runner = codeRunnerSpecialist({ cpuSeconds: 5, wallMs: 3_000, memoryMb: 128 });
const run = (code: string, entry: string, tests: readonly Case[], using = runner) => using.run(specialistInput({ taskData: { language: 'python', code, entry, tests } }));
const report = (result: { artifacts?: readonly { content: string }[] | undefined }) => JSON.parse(result.artifacts?.[0]?.content ?? 'null') as Report;

/** Pids of the processes on this host whose command line is exactly `argv`. */
async function processesRunning(argv: readonly string[]): Promise<number[]> {
  const wanted = `${argv.join('\0')}\0`;
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline === wanted) found.push(Number(entry));
  }
  return found;
}

function killAll(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
}

describe.skipIf(!canConfine || box.python === null)('code runner confinement (python)', () => {
  it('a leftover process cannot rewrite a later run: later wrong candidates still fail', async () => {
    // posix.fork is not the patched os.fork; the child leaves the process group and lingers,
    // rewriting every victim's candidate.py it can reach to return the expected answer.
    const plant = `import glob, os, posix, time
def plant(parent):
    ready, told = posix.pipe()
    if posix.fork() == 0:
        try:
            os.setsid()
            posix.write(told, b'x')
            for fd in range(0, 64):
                try:
                    posix.close(fd)
                except OSError:
                    pass
            end = time.time() + 5
            while time.time() < end:
                for path in glob.glob(os.path.join(parent, '*', 'candidate.py')):
                    try:
                        with open(path) as file:
                            source = file.read()
                        if 'VICTIM' in source:
                            # The Fleet wrote the file, but the run's user owns its directory.
                            with open(path + '.new', 'w') as file:
                                file.write('def answer(*args):\\n    return 42\\n')
                            os.rename(path + '.new', path)
                    except OSError:
                        pass
                time.sleep(0.001)
        finally:
            posix._exit(0)
    posix.read(ready, 1)
    return 'planted'
`;
    expect(await run(plant, 'plant', [{ args: [tmpdir()], expected: 'planted' }])).toMatchObject({ status: 'success' });
    const wrong = '# VICTIM\ndef answer(*args):\n    return 0\n';
    for (let i = 0; i < 3; i++) {
      expect(await run(wrong, 'answer', [{ args: [], expected: 42 }])).toMatchObject({ status: 'failed', error_type: 'tests_failed' });
    }
  });

  it('ends on the candidate exit: a grandchild holding the pipes neither keeps the run nor outlives it', async () => {
    const marker = ['/bin/sleep', `7.${Date.now() % 1000}`];
    const code = `import os, posix
def leave(spin):
    ready, told = posix.pipe()
    if posix.fork() == 0:
        os.setsid()
        posix.write(told, b'x')
        posix.execv(${JSON.stringify(marker[0])}, ['/bin/sleep', ${JSON.stringify(marker[1])}])
    posix.read(ready, 1)
    while spin:
        pass
    return 'left'
`;
    try {
      let started = Date.now();
      expect(await run(code, 'leave', [{ args: [false], expected: 'left' }])).toMatchObject({ status: 'success' });
      expect(Date.now() - started).toBeLessThan(1_500);
      expect(await processesRunning(marker)).toEqual([]);
      // The same past the wall limit (3 s): the run ends at the limit, not when the grandchild does.
      started = Date.now();
      expect(await run(code, 'leave', [{ args: [true], expected: 'left' }])).toMatchObject({ status: 'failed', error_type: 'time_limit_exceeded' });
      expect(Date.now() - started).toBeLessThan(3_000 + 1_000);
      expect(await processesRunning(marker)).toEqual([]);
    } finally {
      killAll(await processesRunning(marker));
    }
  });

  it('bounds a fork bomb', async () => {
    const code = `import posix, time
def bomb():
    made = 0
    try:
        while made < 300:
            if posix.fork() == 0:
                time.sleep(2)
                posix._exit(0)
            made += 1
    except OSError:
        pass
    return made
`;
    const result = await run(code, 'bomb', [{ args: [], expected: 0 }]);
    const made = report(result).cases[0]?.actual;
    expect(typeof made).toBe('number');
    expect(made).toBeLessThan(100);
  });

  it('bounds files written outside the run directory, and leaves none after the run', async () => {
    const path = join(tmpdir(), `tierflow-big-${randomUUID()}`);
    const code = `def fill(path):
    chunk = b'x' * (1024 * 1024)
    with open(path, 'wb') as file:
        for _ in range(64):
            file.write(chunk)
    return 'written'
`;
    try {
      const result = await run(code, 'fill', [{ args: [path], expected: 'written' }]);
      expect(result).toMatchObject({ status: 'failed' });
      expect(report(result).cases[0]?.error).toMatch(/File too large|No space left/);
      await expect(stat(path)).rejects.toMatchObject({ code: 'ENOENT' });
    } finally {
      await rm(path, { force: true });
    }
  });

  it('cannot reach a filesystem unix socket through the C _socket module', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'code-runner-socket-'));
    const path = join(dir, 'secret.sock');
    let connections = 0;
    const server: Server = createServer((socket) => {
      connections++;
      socket.end('the secret');
    });
    try {
      await new Promise<void>((resolve) => server.listen(path, resolve));
      // Open to every user, as a careless service's socket may be: only the namespace hides it.
      await chmod(dir, 0o755);
      await chmod(path, 0o777);
      const code = `import _socket
def steal(path):
    client = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    client.connect(path)
    return client.recv(100).decode()
`;
      const result = await run(code, 'steal', [{ args: [path], expected: 'the secret' }]);
      expect(result).toMatchObject({ status: 'failed' });
      expect(report(result).cases[0]?.error).toMatch(/FileNotFoundError|PermissionError|ConnectionRefusedError/);
      expect(connections).toBe(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('cannot signal the candidate of another run', async () => {
    const victim = 'import time\ndef slow(x):\n    time.sleep(1.5)\n    return x\n';
    const hunter = `import os, time
def hunt():
    killed = 0
    end = time.time() + 1.2
    while time.time() < end:
        for entry in os.listdir('/proc'):
            if not entry.isdigit() or int(entry) == os.getpid():
                continue
            try:
                with open('/proc/%s/cmdline' % entry, 'rb') as file:
                    if b'harness.py' not in file.read():
                        continue
                os.kill(int(entry), 9)
                killed += 1
            except OSError:
                pass
        time.sleep(0.01)
    return killed
`;
    const [slow, hunt] = await Promise.all([run(victim, 'slow', [{ args: [7], expected: 7 }]), run(hunter, 'hunt', [{ args: [], expected: 0 }])]);
    expect(slow).toMatchObject({ status: 'success' });
    expect(report(hunt).cases[0]?.actual).toBe(0);
  });
});
