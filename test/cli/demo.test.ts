import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { waitFor } from '@tierflow/testing';
import { describe, expect, it } from 'vitest';
import { BIN, tierflow } from '../security/tier-processes.js';

// `npm run demo` as the README promises it: four worker processes on a private Redis, every
// example objective, and a question put to a person that the demo answers.
describe('tierflow demo', () => {
  it('runs every example, answering the one that asks a person', async () => {
    const { code, stdout, stderr } = await tierflow(['demo'], { REDIS_URL: '', TIERFLOW_LOG: 'silent' });
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('clarification.json asks: Should an empty array return -1 or raise an exception?');
    expect(stdout).toContain('== clarification.json: success');
    expect(stdout).toMatch(/Ran \d+ objectives through four worker processes/);
  }, 90_000);

  it('with --keep, serves its runs on the dashboard until Ctrl-C', async () => {
    const child = spawn(process.execPath, [BIN, 'demo', '--keep', '--port', '0'], {
      env: { ...process.env, OTEL_TRACES_EXPORTER: 'none', REDIS_URL: '', TIERFLOW_LOG: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    for (const stream of [child.stdout, child.stderr]) createInterface({ input: stream }).on('line', (line) => lines.push(line));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const url = await waitFor(() => (child.exitCode === null ? lines.map((line) => /browse them at (http:\/\/127\.0\.0\.1:\d+)\//.exec(line)?.[1]).find(Boolean) : 'exited'), {
        timeoutMs: 90_000,
        description: `the demo's dashboard:\n${lines.join('\n')}`,
      });
      expect(url, lines.join('\n')).not.toBe('exited');
      const ran = Number(/Ran (\d+) objectives/.exec(lines.join('\n'))?.[1]);
      expect((await fetch(`${url}/`)).status).toBe(200);
      const { runs } = (await (await fetch(`${url}/api/runs?limit=50`)).json()) as { runs: { status: string }[] };
      expect(runs.length).toBe(ran);
      child.kill('SIGINT');
      expect(await exited, lines.join('\n')).toBe(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }, 120_000);
});
