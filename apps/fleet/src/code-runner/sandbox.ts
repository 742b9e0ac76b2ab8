import { execFile } from 'node:child_process';

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
}

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
    succeeds('python3', ['-I', '-c', 'import resource, socket, sys; print(sys.executable)']),
  ]);
  const pythonPath = python === null || python.trim() === '' ? null : python.trim();
  // Only root can switch users; the interpreter must also be reachable for nobody.
  const [nodeAsNobody, pythonAsNobody] = await Promise.all([
    succeeds('setpriv', [...AS_NOBODY.slice(1), process.execPath, '-e', '0']),
    pythonPath === null ? null : succeeds('setpriv', [...AS_NOBODY.slice(1), pythonPath, '-I', '-c', '0']),
  ]);
  return {
    netns,
    prlimit: prlimit !== null,
    nodePermission: node.flag,
    nodeDisableWarning: node.disableWarning,
    python: pythonPath,
    asNobody: { javascript: nodeAsNobody !== null, python: pythonAsNobody !== null },
  };
}

let probed: Promise<Sandbox> | undefined;

/** The sandbox this host offers, probed on the first call and remembered (the probe never fails; what fails counts as absent). */
export function sandbox(): Promise<Sandbox> {
  probed ??= probe();
  return probed;
}
