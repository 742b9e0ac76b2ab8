import { execFile } from 'node:child_process';
import { lstat, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { confinedPrefix, keptUnder, MAX_KEPT, releaseRunUid, takeRunUid, type Confinement } from './confine.js';

/** What this host offers to confine a run, found once per process by trying each. */
export interface Sandbox {
  /** The command prefix that puts the child in a network namespace of its own (no network at all), or null. */
  readonly netns: readonly string[] | null;
  /** Whether `prlimit` can set a child's rlimits (CPU seconds, data size) before Node starts. */
  readonly prlimit: boolean;
  /** Node's permission flag (`--permission` or `--experimental-permission`, whichever this Node knows), or null. */
  readonly nodePermission: string | null;
  /** Whether this Node knows `--disable-warning` (to keep the permission model's warning out of stderr). */
  readonly nodeDisableWarning: boolean;
  /** The Python interpreter's own path (not a launcher that wraps it), or null without `python3`. */
  readonly python: string | null;
  /** Per language, whether the child can run as {@link NOBODY} (the Fleet runs as root and `setpriv` works). */
  readonly asNobody: { readonly javascript: boolean; readonly python: boolean };
  /** How the kernel confines a run on this host (namespaces and a user of its own), or null where it cannot: not root, or no `unshare`. */
  readonly confinement: Confinement | null;
  /** Per language, whether a confined run of its interpreter works here. */
  readonly confined: { readonly javascript: boolean; readonly python: boolean };
}

/**
 * Where sockets, shared files and the Fleet's own secrets usually are: each confined run sees an
 * empty tmpfs there instead (those that exist on the host, symbolic links aside).
 */
export const HIDDEN_DIRECTORIES: readonly string[] = ['/tmp', '/var/tmp', '/run', '/var/run', '/dev/shm', '/root', '/home'];

/** The unprivileged user and group a child runs as where the Fleet is root: `nobody`. */
export const NOBODY = 65_534;

/** The command prefix that runs the rest as {@link NOBODY}, with no supplementary groups. */
export const AS_NOBODY: readonly string[] = ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--'];

const PROBE_TIMEOUT_MS = 5_000;

function succeeds(command: string, args: readonly string[]): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: PROBE_TIMEOUT_MS, encoding: 'utf8' }, (error, stdout) => resolve(error ? null : stdout));
  });
}

async function firstThatWorks(candidates: readonly (readonly string[])[]): Promise<readonly string[] | null> {
  for (const prefix of candidates) {
    const [command, ...args] = prefix;
    if (command !== undefined && (await succeeds(command, [...args, 'true'])) !== null) return prefix;
  }
  return null;
}

async function probeNodePermission(): Promise<{ flag: string | null; disableWarning: boolean }> {
  for (const flag of ['--permission', '--experimental-permission']) {
    if ((await succeeds(process.execPath, [flag, '--allow-fs-read=*', '-e', '0'])) === null) continue;
    const disableWarning = (await succeeds(process.execPath, [flag, '--allow-fs-read=*', '--disable-warning=ExperimentalWarning', '-e', '0'])) !== null;
    return { flag, disableWarning };
  }
  return { flag: null, disableWarning: false };
}

async function probe(): Promise<Sandbox> {
  const [netns, prlimit, node, python] = await Promise.all([
    // As root a plain network namespace works; otherwise a user namespace may grant one.
    firstThatWorks([
      ['unshare', '--net', '--'],
      ['unshare', '--user', '--map-root-user', '--net', '--'],
    ]),
    succeeds('prlimit', ['--cpu=5:6', '--', 'true']),
    probeNodePermission(),
    succeeds('python3', ['-I', '-c', 'import os, resource, socket, sys; print(sys.executable); print(os.path.realpath(sys.base_prefix)); print(os.path.realpath(sys.prefix))']),
  ]);
  // A virtual environment's prefix (its site-packages) is not its base's.
  const [pythonLine, ...pythonPrefixes] = (python ?? '').trim().split('\n');
  const pythonPath = pythonLine === undefined || pythonLine === '' ? null : pythonLine;
  // Only root can switch users; the interpreter must also be reachable for nobody.
  const [nodeAsNobody, pythonAsNobody] = await Promise.all([
    succeeds('setpriv', [...AS_NOBODY.slice(1), process.execPath, '-e', '0']),
    pythonPath === null ? null : succeeds('setpriv', [...AS_NOBODY.slice(1), pythonPath, '-I', '-c', '0']),
  ]);
  const confinement = await probeConfinement(pythonPath === null ? [] : pythonPrefixes.filter((prefix) => prefix !== ''));
  const [nodeConfined, pythonConfined] = await Promise.all([
    confinement === null ? null : trial(confinement, [process.execPath, '-e', '0']),
    confinement === null || pythonPath === null ? null : trial(confinement, [pythonPath, '-I', '-c', '0']),
  ]);
  return {
    netns,
    prlimit: prlimit !== null,
    nodePermission: node.flag,
    nodeDisableWarning: node.disableWarning,
    python: pythonPath,
    asNobody: { javascript: nodeAsNobody !== null, python: pythonAsNobody !== null },
    confinement: nodeConfined === null && pythonConfined === null ? null : confinement,
    confined: { javascript: nodeConfined !== null, python: pythonConfined !== null },
  };
}

async function isDirectory(path: string): Promise<boolean> {
  return lstat(path).then(
    (stats) => stats.isDirectory(),
    () => false,
  );
}

/** The directories to hide and to bind back, where the Fleet is root; whether they work is for {@link trial}. */
async function probeConfinement(pythonPrefixes: readonly string[]): Promise<Confinement | null> {
  if (process.getuid?.() !== 0) return null;
  const hide: string[] = [];
  for (const dir of HIDDEN_DIRECTORIES) if (await isDirectory(dir)) hide.push(dir);
  // An interpreter installed under a hidden directory (pyenv under /root, nvm under /home) is bound back.
  const nodePrefix = dirname(dirname(await realpath(process.execPath)));
  const keep = keptUnder(hide, [nodePrefix, ...pythonPrefixes]);
  return keep.length > MAX_KEPT ? null : { hide, keep };
}

/** Runs `command` confined as a run would be, in a directory of its own; its output, or null when it fails. */
async function trial(confinement: Confinement, command: readonly string[]): Promise<string | null> {
  const dir = await mkdtemp(join(tmpdir(), 'tierflow-probe-'));
  const uid = takeRunUid();
  try {
    const [unshare, ...args] = confinedPrefix(confinement, { dir, uid, fileBytes: 1024 * 1024, maxProcesses: 64 });
    return await new Promise((resolve) => {
      execFile(unshare ?? 'unshare', [...args, ...command], { cwd: dir, timeout: PROBE_TIMEOUT_MS, encoding: 'utf8' }, (error, stdout) => resolve(error ? null : stdout));
    });
  } finally {
    releaseRunUid(uid);
    await rm(dir, { recursive: true, force: true });
  }
}

let probed: Promise<Sandbox> | undefined;

/** The sandbox this host offers, probed on the first call and remembered (the probe never fails; what fails counts as absent). */
export function sandbox(): Promise<Sandbox> {
  probed ??= probe();
  return probed;
}
