import { execFile, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { waitFor } from '@tierflow/testing';
import { describe, expect, it } from 'vitest';
import { BIN } from '../security/tier-processes.js';

/** `tierflow demo` to its end, with 100 s where `tierflow()` allows 30: on a loaded machine, its ten runs on eight worker processes have taken longer. */
async function demo(): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, OTEL_TRACES_EXPORTER: 'none', REDIS_URL: '', TIERFLOW_LOG: 'silent' };
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, 'demo'], { env, timeout: 100_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? String(error) };
  }
}

// `npm run demo` as the README promises it: four worker processes on a private Redis, every
// example objective, and a question put to a person that the demo answers; then the tool-use
// example (examples/tool-use) on four more, an LLM specialist calling tools against a scripted model.
describe('tierflow demo', () => {
  it('runs every example, answering the one that asks a person, then the tool-use example', async () => {
    const { code, stdout, stderr } = await demo();
    expect(code, `${stderr}\n${stdout}`).toBe(0);
    expect(stdout).toContain('clarification.json asks: Should an empty array return -1 or raise an exception?');
    expect(stdout).toContain('== clarification.json: success');
    expect(stdout).toMatch(/Ran \d+ objectives through four worker processes/);
    // examples/tool-use, on workers of its own against its scripted model: the leaf's tool calls as `tierflow inspect` shows them.
    expect(stdout).toContain('== tool-use/objective.json: success');
    expect(stdout).toContain('answered: Read 3 notes (91 words); the longest is queues.txt, with 45 words');
    expect(stdout).toContain('tool calls (7)');
    expect(stdout).toMatch(/1\. mcp:notes\/list_notes {2}ok/);
    for (const tool of ['mcp:notes/read_note', 'count_words']) expect(stdout.match(new RegExp(`\\d\\. ${tool} {2}ok`, 'g')), tool).toHaveLength(3);
  }, 120_000);

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
