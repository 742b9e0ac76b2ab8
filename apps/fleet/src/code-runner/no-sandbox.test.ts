import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isTierflowError } from '@tierflow/protocol';
import { describe, expect, it, vi } from 'vitest';
import { specialistInput } from '../test-input.js';
import { codeRunnerSpecialist } from './code-runner.js';
import type * as SandboxModule from './sandbox.js';
import type { Sandbox } from './sandbox.js';

// A host with none of the tools: no namespaces, no prlimit, no permission model, no python3.
vi.mock('./sandbox.js', async (importOriginal) => ({
  ...(await importOriginal<typeof SandboxModule>()),
  sandbox: (): Promise<Sandbox> =>
    Promise.resolve({
      netns: null,
      prlimit: false,
      nodePermission: null,
      nodeDisableWarning: false,
      python: null,
      asNobody: { javascript: false, python: false },
      confinement: null,
      confined: { javascript: false, python: false },
    }),
}));

const runner = codeRunnerSpecialist({ wallMs: 1_000 });

describe('codeRunnerSpecialist on a bare host', () => {
  it('fails a python subtask permanently: language_unavailable', async () => {
    const taskData = { language: 'python', code: 'def f():\n    return 1\n', entry: 'f', tests: [{ args: [], expected: 1 }] };
    const error = await runner.run(specialistInput({ taskData })).catch((e: unknown) => e);
    expect(isTierflowError(error) && !error.retryable && error.code).toBe('language_unavailable');
    expect((error as Error).message).toContain('python3');
  });

  it('still runs javascript', async () => {
    const taskData = { code: 'function f(x) { return x + 1; }', entry: 'f', tests: [{ args: [1], expected: 2 }] };
    expect(await runner.run(specialistInput({ taskData }))).toMatchObject({ status: 'success', summary: '1/1 tests passed' });
  });

  it('stops an infinite loop by the wall clock', async () => {
    const taskData = { code: 'function spin() { for (;;) {} }', entry: 'spin', tests: [{ args: [], expected: 1 }] };
    expect(await runner.run(specialistInput({ taskData }))).toMatchObject({ status: 'failed', error_type: 'time_limit_exceeded', error_detail: 'wall-clock limit of 1000 ms exceeded' });
  });

  it('refuses a network call with the in-language guards alone', async () => {
    let requests = 0;
    const server = createServer((_request, response) => {
      requests++;
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const code = 'async function call(port) { return (await fetch("http://127.0.0.1:" + port)).status; }';
      const taskData = { code, entry: 'call', tests: [{ args: [(server.address() as AddressInfo).port], expected: 200 }] };
      expect(await runner.run(specialistInput({ taskData }))).toMatchObject({ status: 'failed', error_type: 'network_denied' });
      expect(requests).toBe(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
