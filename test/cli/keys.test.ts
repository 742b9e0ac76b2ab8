import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// `tierflow keys` as an operator runs it.
const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'apps', 'cli', 'bin', 'tierflow.js');
const root = mkdtempSync(join(tmpdir(), 'tierflow-keys-cli-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function tierflow(args: string[], env: NodeJS.ProcessEnv = {}) {
  const run = spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, TIERFLOW_KEYS_DIR: '', TIERFLOW_LOG: 'silent', ...env }, encoding: 'utf8', timeout: 30_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('tierflow keys', () => {
  it('generates a key set, lists it, rotates a party and retires its old key', () => {
    const dir = join(root, 'keys');
    const generated = tierflow(['keys', 'generate', '--dir', dir]);
    expect(generated).toMatchObject({ code: 0, stderr: '' });
    expect(generated.stdout).toMatch(/fleet-[0-9a-f]{12} {2}fleet/);
    expect(readdirSync(dir).sort()).toEqual(['architect.key', 'client.key', 'dispatcher.key', 'fleet.key', 'monitor.key', 'public-keys.json']);
    expect(tierflow(['keys', 'generate', '--dir', dir])).toMatchObject({ code: 2, stderr: expect.stringContaining('already holds a key set') as unknown });

    const old = /(fleet-[0-9a-f]{12})/.exec(generated.stdout)![1]!;
    const rotated = tierflow(['keys', 'rotate', 'fleet'], { TIERFLOW_KEYS_DIR: dir });
    expect(rotated.stdout).toMatch(/^fleet now signs with fleet-[0-9a-f]{12}/);
    const listed = tierflow(['keys', 'list', '--dir', dir])
      .stdout.split('\n')
      .filter((line) => line.includes(' fleet '));
    expect(listed).toHaveLength(2);
    expect(listed[0]).toMatch(/current$/);
    expect(listed[1]).toMatch(new RegExp(`^${old} .* accepted$`));
    expect(tierflow(['keys', 'retire', old, '--dir', dir])).toMatchObject({ code: 0, stdout: `retired ${old} of fleet: what it signed is refused from now\n` });
    expect(
      tierflow(['keys', 'list', '--dir', dir])
        .stdout.split('\n')
        .filter((line) => line.includes(' fleet ')),
    ).toHaveLength(1);
  });

  it('says what is wrong, with exit status 2', () => {
    expect(tierflow(['keys', 'list'])).toMatchObject({ code: 2, stderr: 'keys: name the key directory with --dir or TIERFLOW_KEYS_DIR\n' });
    expect(tierflow(['keys', 'rotate', 'nobody', '--dir', root])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('rotate needs a party: monitor, architect, dispatcher, fleet, client') as unknown,
    });
    expect(tierflow(['keys', 'list', '--dir', join(root, 'none')])).toMatchObject({ code: 2, stderr: expect.stringContaining('no key set at') as unknown });
  });

  it('stops a worker configured with the retired shared key at start, saying what replaced it', () => {
    const started = tierflow(['worker', 'fleet'], { TIERFLOW_SIGNING_KEY: 'x'.repeat(40), REDIS_URL: 'redis://127.0.0.1:1' });
    expect(started.code).toBe(2);
    expect(started.stderr).toContain('TIERFLOW_SIGNING_KEY: one shared key no longer signs for everyone');
    expect(started.stderr).toContain('tierflow keys generate');
  });

  it('stops a worker, and a client, that lack the private key they must sign with, before they connect', () => {
    const dir = join(root, 'fleet-host');
    tierflow(['keys', 'generate', '--dir', dir]);
    for (const party of ['monitor', 'architect', 'dispatcher', 'client']) rmSync(join(dir, `${party}.key`));
    const env = { TIERFLOW_KEYS_DIR: dir, REDIS_URL: 'redis://127.0.0.1:1' };
    expect(tierflow(['worker', 'dispatcher'], env)).toMatchObject({ code: 2, stderr: expect.stringContaining('holds no private key for dispatcher: it cannot sign as dispatcher') as unknown });
    const objective = join(root, 'objective.json');
    writeFileSync(objective, JSON.stringify({ objective: 'x' }));
    expect(tierflow(['enqueue', objective], env)).toMatchObject({ code: 2, stderr: expect.stringContaining('holds no private key for client') as unknown });
  });
});
