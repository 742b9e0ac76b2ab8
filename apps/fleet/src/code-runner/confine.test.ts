import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONFINE_SETUP_FAILED, CONFINE_SETUP_MARK, confinedPrefix, keptUnder, releaseRunUid, RUN_UID_BASE, RUN_UID_COUNT, signalOfStatus, takeRunUid } from './confine.js';
import { sandbox } from './sandbox.js';

describe('keptUnder', () => {
  it('keeps the directories under a hidden one, once each', () => {
    expect(keptUnder(['/tmp', '/root'], ['/root/.pyenv/versions/3.12', '/usr', '/root/.pyenv/versions/3.12', '/rootless', '/tmp'])).toEqual(['/root/.pyenv/versions/3.12', '/tmp']);
  });
});

describe('signalOfStatus', () => {
  it('reads 128 + n as signal n, and nothing else as a signal', () => {
    expect(signalOfStatus(128 + 24)).toBe('SIGXCPU');
    expect(signalOfStatus(128 + 9)).toBe('SIGKILL');
    expect(signalOfStatus(128 + 25)).toBe('SIGXFSZ');
    expect(signalOfStatus(0)).toBeNull();
    expect(signalOfStatus(128)).toBeNull();
    expect(signalOfStatus(null)).toBeNull();
    expect(signalOfStatus(250)).toBeNull();
  });
});

describe('takeRunUid', () => {
  it('draws from its range, never one a run of this process holds', () => {
    const draws = [5, 5, 5, 6];
    const random = (): number => draws.shift() ?? 7;
    const first = takeRunUid(random);
    const second = takeRunUid(random);
    expect([first, second]).toEqual([RUN_UID_BASE + 5, RUN_UID_BASE + 6]);
    releaseRunUid(first);
    expect(takeRunUid(() => 5)).toBe(RUN_UID_BASE + 5);
    releaseRunUid(first);
    releaseRunUid(second);
    const drawn = takeRunUid();
    expect(drawn).toBeGreaterThanOrEqual(RUN_UID_BASE);
    expect(drawn).toBeLessThan(RUN_UID_BASE + RUN_UID_COUNT);
    releaseRunUid(drawn);
  });
});

const box = await sandbox();
const confinement = box.confinement;

function confined(dir: string, command: readonly string[], hide = confinement?.hide ?? []): Promise<{ code: number; stdout: string; stderr: string }> {
  const uid = takeRunUid();
  const [unshare, ...args] = confinedPrefix({ hide, keep: confinement?.keep ?? [] }, { dir, uid, fileBytes: 1024 * 1024, maxProcesses: 16 });
  return new Promise((resolve) => {
    execFile(unshare ?? 'unshare', [...args, ...command], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } }, (error, stdout, stderr) => {
      releaseRunUid(uid);
      resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
    });
  });
}

describe.skipIf(confinement === null)('a confined run (where the Fleet is root)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'confine-test-'));
    await writeFile(join(dir, 'input.txt'), 'from the Fleet');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('runs as a user of its own, in a directory of its own that holds a copy of the Fleet files, with the host hidden', async () => {
    const script =
      'id -u; id -G; stat -c "%u %a" .; cat input.txt; echo; echo $(ls -A /tmp); echo $(ls -A /run /dev/shm /home); echo $(ls -A /root); ls /proc | grep -c "^[0-9]"; touch /tmp/x && echo tmp-writable';
    const { code, stdout } = await confined(dir, ['sh', '-c', script]);
    expect(code).toBe(0);
    const [uid, groups, owner, input, inTmp, inRun, inRoot, processes, tmp] = stdout.trim().split('\n');
    const run = Number(uid);
    expect(run).toBeGreaterThanOrEqual(RUN_UID_BASE);
    expect(groups).toBe(uid);
    expect(owner).toBe(`${uid} 700`);
    expect(input).toBe('from the Fleet');
    // /tmp holds the way to the run's own directory and nothing of the host's; so for the others.
    expect(inTmp).toBe(dir.startsWith('/tmp/') ? dir.split('/')[2] : '');
    expect(inRun).toMatch(/^[^.]*$/);
    expect(inRun?.replace(/\/\S+:/g, '').trim()).toBe('');
    // What an interpreter installed under /root needs, bound back, and nothing else.
    const kept = (confinement?.keep ?? []).filter((path) => path.startsWith('/root/')).map((path) => path.split('/')[2]);
    expect(inRoot).toBe([...new Set(kept)].join(' '));
    // Its own PID namespace: the shell that set it up, this shell and what it runs.
    expect(Number(processes)).toBeLessThan(6);
    expect(tmp).toBe('tmp-writable');
  });

  it('reports signals as 128 + their number, and leaves nothing in the Fleet directory', async () => {
    const { code } = await confined(dir, ['sh', '-c', 'echo kept > written.txt; kill -XCPU $$']);
    expect(signalOfStatus(code)).toBe('SIGXCPU');
    await expect(import('node:fs/promises').then((fs) => fs.readdir(dir))).resolves.toEqual(['input.txt']);
  });

  it('fails with its own status and mark when setting up fails', async () => {
    const { code, stderr } = await confined(dir, ['true'], ['/no/such/directory/here']);
    expect(code).toBe(CONFINE_SETUP_FAILED);
    expect(stderr).toContain(CONFINE_SETUP_MARK);
  });
});
