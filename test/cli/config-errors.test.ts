import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLEET_MAIN, runCommand } from '../support/run-command.js';

// The commands as a user runs them, each in a process of its own, with a bad environment.
const LOCK_ZERO = 'TIERFLOW_LOCK_DURATION_MS="0": must be a whole number of milliseconds, at least 1000';

let dir: string;
let objective: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tierflow-config-'));
  objective = join(dir, 'objective.json');
  await writeFile(objective, JSON.stringify({ objective: 'never runs' }));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a bad variable stops the process at start, with exit status 2, naming it', () => {
  it.each<[string, string | undefined, readonly string[]]>([
    ['tierflow worker fleet', undefined, ['worker', 'fleet']],
    ['tierflow enqueue', undefined, ['enqueue', '<objective>']],
    ['tierflow up', undefined, ['up']],
    ['tierflow demo', undefined, ['demo']],
    ['the Fleet process', FLEET_MAIN, []],
  ])('%s', async (_name, script, args) => {
    const { status, output } = await runCommand(
      args.map((arg) => (arg === '<objective>' ? objective : arg)),
      { TIERFLOW_LOCK_DURATION_MS: '0' },
      script ? { script } : {},
    );
    expect(status, output).toBe(2);
    expect(output).toContain(LOCK_ZERO);
    expect(output).not.toContain('worker ready');
    expect(output).not.toContain('restarting');
  });

  it('names every bad variable, one line each', async () => {
    const { status, output } = await runCommand(['worker', 'monitor'], {
      TIERFLOW_LOCK_DURATION_MS: '0',
      TIERFLOW_ARCHITECT_TIMEOUT_MS: '1.5',
      TIERFLOW_CONCURRENCY: 'abc',
      FLEET_CONCURRENCY: '-1',
    });
    expect(status, output).toBe(2);
    const lines = output.split('\n');
    for (const name of ['TIERFLOW_LOCK_DURATION_MS="0"', 'TIERFLOW_ARCHITECT_TIMEOUT_MS="1.5"', 'TIERFLOW_CONCURRENCY="abc"', 'FLEET_CONCURRENCY="-1"']) {
      expect(
        lines.filter((line) => line.includes(name)),
        output,
      ).toHaveLength(1);
    }
  });

  // A model endpoint written without its scheme would only fail at the first model call, as a connection error.
  it.each<[string, readonly string[]]>([
    ['tierflow worker fleet', ['worker', 'fleet']],
    ['tierflow up', ['up']],
  ])('an OPENAI_BASE_URL that is not an http(s) URL: %s', async (_name, args) => {
    const { status, output } = await runCommand(args, { OPENAI_BASE_URL: 'localhost:8000/v1' });
    expect(status, output).toBe(2);
    expect(output).toMatch(/OPENAI_BASE_URL="[^"]*": must be an http:\/\/ or https:\/\/ URL/);
    expect(output).not.toContain('worker ready');
  });
});
