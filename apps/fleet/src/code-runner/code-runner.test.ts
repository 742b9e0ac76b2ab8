import { isTierflowError } from '@tierflow/protocol';
import { startRequestCounter, type RequestCounter } from '@tierflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { specialistInput } from '../test-input.js';
import { codeRunnerSpecialist } from './code-runner.js';
import { sandbox } from './sandbox.js';

// Real child processes, with limits small enough to keep the file quick.
const runner = codeRunnerSpecialist({ cpuSeconds: 1, wallMs: 3_000, memoryMb: 128 });
const run = (taskData: Record<string, unknown>, overrides: Parameters<typeof specialistInput>[0] = {}) => runner.run(specialistInput({ taskData, ...overrides }));

const ADD = 'function add(a, b) { return a + b; }';
const addTests = (count: number) => Array.from({ length: count }, (_, i) => ({ args: [i, i], expected: 2 * i, name: `add ${i}` }));

interface TestResultContent {
  passed: number;
  total: number;
  cases: { name: string; passed: boolean; expected: unknown; actual?: unknown; error?: string; ms?: number }[];
}
const content = (result: { artifacts?: readonly { content: string }[] | undefined }): TestResultContent => JSON.parse(result.artifacts?.[0]?.content ?? 'null') as TestResultContent;

// The server a network call would reach: it must never see a request.
let server: RequestCounter;
beforeAll(async () => {
  console.info('code-runner sandbox on this host:', await sandbox());
  server = await startRequestCounter();
});
afterAll(() => server.close());
const port = () => server.port;

describe('codeRunnerSpecialist (javascript)', () => {
  it('passes every case and reports each with its value and time', async () => {
    const result = await run({ code: ADD, entry: 'add', tests: addTests(5) });
    expect(result).toMatchObject({ status: 'success', summary: '5/5 tests passed', confidence: 1 });
    expect(result.artifacts?.[0]).toMatchObject({ artifact_type: 'test_result', metadata: { passed: 5, total: 5, language: 'javascript' } });
    const report = content(result);
    expect(report.cases[1]).toMatchObject({ name: 'add 1', passed: true, expected: 2, actual: 2 });
    expect(report.cases.every((c) => typeof c.ms === 'number')).toBe(true);
  });

  it('fails tests_failed with partial confidence when some cases differ; console output does not disturb it', async () => {
    const code = 'const add = async (a, b) => { console.log("noise", a); return a === 2 ? 0 : a + b; };';
    const result = await run({ code, entry: 'add', tests: addTests(4) });
    expect(result).toMatchObject({ status: 'failed', error_type: 'tests_failed', recoverable: false, confidence: 0.75 });
    expect(result.summary).toMatch(/^3\/4 tests passed: add 2: expected 4, got 0/);
    expect(content(result).cases[2]).toMatchObject({ passed: false, expected: 4, actual: 0 });
  });

  it('takes the code from task_data.candidate', async () => {
    const result = await run({ candidate: { code: 'exports.double = (x) => x * 2;', entry: 'double' }, tests: [{ args: [21], expected: 42 }] });
    expect(result).toMatchObject({ status: 'success', summary: '1/1 tests passed' });
  });

  it('reports a throwing case with its error and runs the others', async () => {
    const code = 'function f(x) { if (x < 0) throw new TypeError("negative"); return x; }';
    const result = await run({
      code,
      entry: 'f',
      tests: [
        { args: [1], expected: 1 },
        { args: [-1], expected: -1 },
      ],
    });
    expect(result).toMatchObject({ status: 'failed', error_type: 'tests_failed', confidence: 0.5 });
    expect(content(result).cases[1]?.error).toMatch(/^TypeError: negative\n.*candidate\.cjs:1/);
  });

  it('fails syntax_error for code that does not compile', async () => {
    const result = await run({ code: 'function f( {', entry: 'f', tests: addTests(2) });
    expect(result).toMatchObject({ status: 'failed', error_type: 'syntax_error', recoverable: false, confidence: 0 });
    expect(result.error_detail).toContain('SyntaxError');
    expect(content(result).cases[0]?.error).toMatch(/^not run/);
  });

  it('fails runtime_error when the entry is not defined', async () => {
    const result = await run({ code: 'const g = 1;', entry: 'f', tests: addTests(1) });
    expect(result).toMatchObject({ status: 'failed', error_type: 'runtime_error' });
    expect(result.error_detail).toContain('f is not a function the code defines');
  });

  it('stops an infinite loop at the CPU limit', async () => {
    const result = await run({ code: 'function spin() { for (;;) {} }', entry: 'spin', tests: addTests(1) });
    expect(result).toMatchObject({ status: 'failed', error_type: 'time_limit_exceeded', recoverable: false });
  });

  it('stops a memory bomb at the memory limit', async () => {
    const code = 'function bomb() { const all = []; for (;;) all.push(Buffer.alloc(16 * 1024 * 1024, 1), new Array(1e6).fill(1.5)); }';
    const result = await run({ code, entry: 'bomb', tests: addTests(1) });
    expect(result).toMatchObject({ status: 'failed', error_type: 'memory_limit_exceeded', recoverable: false });
  });

  it('refuses a network call: network_denied, and the server sees nothing', async () => {
    const code = `async function call(port) { const response = await fetch('http://127.0.0.1:' + port); return response.status; }
function get(port) { return new Promise((resolve, reject) => require('node:http').get('http://127.0.0.1:' + port, (r) => resolve(r.statusCode)).on('error', reject)); }`;
    for (const entry of ['call', 'get']) {
      const result = await run({ code, entry, tests: [{ args: [port()], expected: 200 }] });
      expect(result).toMatchObject({ status: 'failed', error_type: 'network_denied', recoverable: false });
      expect(content(result).cases[0]?.error).toContain('NetworkDeniedError');
    }
    expect(server.requests()).toBe(0);
  });

  it('refuses to start processes', async () => {
    const code = 'function sh() { return require("node:child_process").execSync("echo hi").toString(); }';
    const result = await run({ code, entry: 'sh', tests: [{ args: [], expected: 'hi\n' }] });
    expect(result).toMatchObject({ status: 'failed', error_type: 'tests_failed' });
    expect(content(result).cases[0]?.error).toMatch(/denied|ERR_ACCESS_DENIED/);
  });

  it('kills the child at once when the signal fires, and throws its reason', async () => {
    const controller = new AbortController();
    const reason = new Error('cancelled by the test');
    const started = Date.now();
    const running = run({ code: 'function spin() { for (;;) {} }', entry: 'spin', tests: addTests(1) }, { signal: controller.signal });
    setTimeout(() => controller.abort(reason), 200);
    await expect(running).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('stops at the delegation deadline, before its own limits', async () => {
    const slow = codeRunnerSpecialist({ cpuSeconds: 10, wallMs: 20_000 });
    const started = Date.now();
    const result = await slow.run(specialistInput({ taskData: { code: 'function spin() { for (;;) {} }', entry: 'spin', tests: addTests(1) }, deadline: started + 500 }));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(result).toMatchObject({ status: 'failed', error_type: 'time_limit_exceeded', recoverable: true });
    expect(result.error_detail).toMatch(/deadline/);
  });

  it('refuses bad task_data permanently, naming the field', async () => {
    const error = await run({ code: ADD, entry: 'add', tests: [{ args: 'nope', expected: 1 }] }).catch((e: unknown) => e);
    expect(isTierflowError(error) && !error.retryable && error.code).toBe('invalid_task_data');
    expect((error as Error).message).toContain('task_data.tests.0.args');
  });
});
