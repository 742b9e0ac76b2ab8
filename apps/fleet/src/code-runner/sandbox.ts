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
}

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
  return {
    netns,
    prlimit: prlimit !== null,
    nodePermission: node.flag,
    nodeDisableWarning: node.disableWarning,
    python: python === null || python.trim() === '' ? null : python.trim(),
  };
}

let probed: Promise<Sandbox> | undefined;

/** The sandbox this host offers, probed on the first call and remembered (the probe never fails; what fails counts as absent). */
export function sandbox(): Promise<Sandbox> {
  probed ??= probe();
  return probed;
}
