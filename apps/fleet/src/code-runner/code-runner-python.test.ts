import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRequestCounter, type RequestCounter } from '@tierflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { specialistInput } from '../test-input.js';
import { codeRunnerSpecialist } from './code-runner.js';
import { sandbox } from './sandbox.js';

const box = await sandbox();
if (box.python === null) console.warn('code-runner python tests skipped: no python3 on PATH');

const runner = codeRunnerSpecialist({ cpuSeconds: 1, wallMs: 3_000, memoryMb: 128 });
const run = (code: string, entry: string, tests: readonly { args: unknown[]; expected: unknown; name?: string }[], overrides: Parameters<typeof specialistInput>[0] = {}) =>
  runner.run(specialistInput({ taskData: { language: 'python', code, entry, tests }, ...overrides }));
const content = (result: { artifacts?: readonly { content: string }[] | undefined }) => JSON.parse(result.artifacts?.[0]?.content ?? 'null') as { cases: { passed: boolean; error?: string }[] };

let server: RequestCounter;
beforeAll(async () => {
  server = await startRequestCounter();
});
afterAll(() => server.close());

describe.skipIf(box.python === null)('codeRunnerSpecialist (python)', () => {
  it('passes every case; print() does not disturb the results', async () => {
    const code = 'def add(a, b):\n    print("noise", a)\n    return a + b\n';
    const tests = Array.from({ length: 5 }, (_, i) => ({ args: [i, i], expected: 2 * i }));
    const result = await run(code, 'add', tests);
    expect(result).toMatchObject({ status: 'success', summary: '5/5 tests passed', confidence: 1 });
    expect(result.artifacts?.[0]?.metadata).toEqual({ passed: 5, total: 5, language: 'python' });
  });

  it('compares as JSON: tuples are lists, and awaits a coroutine', async () => {
    const code = 'async def pair(a):\n    return (a, {"k": a})\n';
    const result = await run(code, 'pair', [{ args: [1], expected: [1, { k: 1 }] }]);
    expect(result).toMatchObject({ status: 'success' });
  });

  it('reports failing and throwing cases: tests_failed', async () => {
    const code = 'def inv(x):\n    return 1 / x\n';
    const result = await run(code, 'inv', [
      { args: [2], expected: 0.5 },
      { args: [0], expected: 0 },
      { args: [4], expected: 1 },
    ]);
    expect(result).toMatchObject({ status: 'failed', error_type: 'tests_failed', recoverable: false });
    expect(result.confidence).toBeCloseTo(1 / 3);
    expect(content(result).cases[1]?.error).toMatch(/^ZeroDivisionError: division by zero\n {2}candidate\.py, line 2, in inv/);
  });

  it('fails syntax_error for code that does not compile', async () => {
    const result = await run('def f(x:\n    pass\n', 'f', [{ args: [1], expected: 1 }]);
    expect(result).toMatchObject({ status: 'failed', error_type: 'syntax_error' });
    expect(result.error_detail).toMatch(/^SyntaxError: .*\(candidate\.py, line 1\)/);
  });

  it('stops an infinite loop at the CPU limit', async () => {
    const result = await run('def spin():\n    while True:\n        pass\n', 'spin', [{ args: [], expected: 1 }]);
    expect(result).toMatchObject({ status: 'failed', error_type: 'time_limit_exceeded', recoverable: false });
  });

  it('stops a memory bomb at the memory limit', async () => {
    const result = await run('def bomb():\n    hoard = []\n    while True:\n        hoard.append(bytearray(16 * 1024 * 1024))\n', 'bomb', [{ args: [], expected: 1 }]);
    expect(result).toMatchObject({ status: 'failed', error_type: 'memory_limit_exceeded', recoverable: false });
  });

  it('refuses a network call: network_denied, and the server sees nothing', async () => {
    const code = 'import urllib.request\ndef get(port):\n    return urllib.request.urlopen("http://127.0.0.1:%d/" % port, timeout=2).status\n';
    const result = await run(code, 'get', [{ args: [server.port], expected: 200 }]);
    expect(result).toMatchObject({ status: 'failed', error_type: 'network_denied', recoverable: false });
    expect(server.requests()).toBe(0);
  });

  it('refuses to start processes', async () => {
    const result = await run('import subprocess\ndef sh():\n    return subprocess.run(["true"]).returncode\n', 'sh', [{ args: [], expected: 0 }]);
    expect(content(result).cases[0]?.error).toMatch(/^PermissionError: starting processes is denied/);
  });

  it.skipIf(!box.asNobody.python && !box.confined.python)('runs as another user where the Fleet is root: it cannot write outside its directory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'code-runner-test-'));
    try {
      const code = 'def write(path):\n    with open(path, "w") as file:\n        file.write("pwned")\n    return "written"\n';
      const result = await run(code, 'write', [{ args: [join(dir, 'out.txt')], expected: 'written' }]);
      // Confined, the host's temporary directory is not even there; otherwise it is not the run's.
      expect(content(result).cases[0]?.error).toMatch(/^(PermissionError|FileNotFoundError)/);
      await expect(stat(join(dir, 'out.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('kills the child at once when the signal fires', async () => {
    const controller = new AbortController();
    const reason = new Error('cancelled by the test');
    const started = Date.now();
    const running = run('def spin():\n    while True:\n        pass\n', 'spin', [{ args: [], expected: 1 }], { signal: controller.signal });
    setTimeout(() => controller.abort(reason), 200);
    await expect(running).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
