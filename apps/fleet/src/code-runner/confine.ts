import { randomInt } from 'node:crypto';
import { constants } from 'node:os';
import { TierflowError } from '@tierflow/protocol';

/**
 * How this host confines a run in the kernel: each run gets PID, mount, network and IPC
 * namespaces of its own and a user id of its own. Found by the probe (sandbox.ts); needs root and
 * util-linux (`unshare`, `mount`, `prlimit`, `setpriv`).
 */
export interface Confinement {
  /** Directories hidden behind an empty tmpfs in each run (their sockets and files with them). */
  readonly hide: readonly string[];
  /** Directories under a hidden one that an interpreter needs, bound back read-only: at most {@link MAX_KEPT}. */
  readonly keep: readonly string[];
}

/** What one confined run gets. */
export interface ConfinedRun {
  /** The run's directory: on the host, where the Fleet wrote its files; in the run, the same path on a tmpfs of its own. */
  readonly dir: string;
  readonly uid: number;
  /** RLIMIT_FSIZE, and the size of each tmpfs the run can write to. */
  readonly fileBytes: number;
  /** RLIMIT_NPROC: processes and threads of the run's user, all together. */
  readonly maxProcesses: number;
}

/** The user ids runs take, one per run: 0x71000000 and up, in the range systemd leaves unused. */
export const RUN_UID_BASE = 0x7100_0000;
export const RUN_UID_COUNT = 0x100_0000;

/** The exit status by which the namespace's first process says that setting up the run failed. */
export const CONFINE_SETUP_FAILED = 125;
/** What it writes on stderr then, before what went wrong. */
export const CONFINE_SETUP_MARK = 'tierflow-confine:';

// The file descriptors that hold the directories to bind back while everything is being hidden
// (0 to 3 are the run's stdio and result channel): at most this many directories.
const KEEP_FDS = [4, 5, 6, 7, 8, 9] as const;
export const MAX_KEPT = KEEP_FDS.length;

/**
 * The first process of the run's PID namespace, a POSIX shell running as root, started as
 * `sh -c SCRIPT tierflow-run DIR UID BYTES NPROC NHIDE HIDE... NKEEP KEEP... -- COMMAND...`
 * with the host's copy of the run's directory as its working directory. It hides, binds back,
 * gives the run a directory of its own on a tmpfs (owned by the run's user, mode 0700, a copy
 * of what the Fleet wrote), then runs the command as that user with its rlimits, and exits with
 * its status (128 + the signal's number when a signal ended it). Its exit ends the namespace:
 * the kernel kills whatever the command left behind.
 */
const SCRIPT = `
fail() { echo "${CONFINE_SETUP_MARK} $*" >&2; exit ${CONFINE_SETUP_FAILED}; }
dir=$1 uid=$2 bytes=$3 nproc=$4
shift 4
hide=$1
shift
hidden=
while [ "$hide" -gt 0 ]; do hidden="$hidden$1
"; shift; hide=$((hide - 1)); done
keep=$1
shift
fd=4
kept=
while [ "$keep" -gt 0 ]; do
  [ -d "$1" ] || fail "no directory $1"
  eval "exec $fd<\\"\\$1\\"" || fail "cannot open $1"
  kept="$kept$fd $1
"
  shift; keep=$((keep - 1)); fd=$((fd + 1))
done
[ "$1" = -- ] || fail "bad arguments"
shift
tmpfs="size=$bytes,nr_inodes=4096,nosuid,nodev"
printf %s "$hidden" | while IFS= read -r path; do
  case "$path" in /tmp|/var/tmp|/dev/shm) mode=1777 ;; *) mode=0755 ;; esac
  mount -n -t tmpfs -o "$tmpfs,mode=$mode" tierflow-run "$path" || exit 1
done || fail "cannot hide the host's directories"
printf %s "$kept" | while read -r fd path; do
  mkdir -p "$path" && mount -n --no-canonicalize --bind "/proc/self/fd/$fd" "$path" && mount -n -o remount,bind,ro,nosuid,nodev "$path" || exit 1
done || fail "cannot bind back what the interpreter needs"
mkdir -p "$dir" && mount -n -t tmpfs -o "$tmpfs,mode=0700,uid=$uid,gid=$uid" tierflow-run "$dir" || fail "cannot mount the run's directory"
cp -R ./. "$dir" && cd "$dir" || fail "cannot copy the run's files"
exec 4<&- 5<&- 6<&- 7<&- 8<&- 9<&-
prlimit --nproc="$nproc" --fsize="$bytes" -- setpriv --reuid="$uid" --regid="$uid" --clear-groups --no-new-privs -- "$@"
exit $?
`;

/**
 * The command prefix that runs the rest confined, as {@link SCRIPT} describes: `--kill-child`
 * also ends the namespace when the Fleet kills the `unshare` process itself.
 *
 * @throws TierflowError (permanent, code `code_runner_spawn_failed`) for more than {@link MAX_KEPT} directories to bind back.
 */
export function confinedPrefix(confinement: Confinement, run: ConfinedRun): string[] {
  if (confinement.keep.length > MAX_KEPT) {
    throw TierflowError.permanent(`code-runner: at most ${MAX_KEPT} directories can be bound back`, { code: 'code_runner_spawn_failed' });
  }
  return [
    'unshare',
    '--pid',
    '--fork',
    '--kill-child',
    '--mount',
    '--mount-proc',
    '--propagation',
    'private',
    '--net',
    '--ipc',
    '--',
    'sh',
    '-c',
    SCRIPT,
    'tierflow-run',
    run.dir,
    String(run.uid),
    String(run.fileBytes),
    String(run.maxProcesses),
    String(confinement.hide.length),
    ...confinement.hide,
    String(confinement.keep.length),
    ...confinement.keep,
    '--',
  ];
}

/** Pure: what needs binding back: each interpreter's directory that lies under a hidden one. */
export function keptUnder(hide: readonly string[], needed: readonly string[]): string[] {
  const under = (path: string, dir: string): boolean => path === dir || path.startsWith(`${dir}/`);
  return [...new Set(needed.filter((path) => hide.some((dir) => under(path, dir))))];
}

/** Pure: the signal a confined run's status names (the shell reports one as 128 + its number), or null. */
export function signalOfStatus(exitCode: number | null): NodeJS.Signals | null {
  if (exitCode === null || exitCode <= 128) return null;
  const number = exitCode - 128;
  const found = Object.entries(constants.signals).find(([, value]) => value === number);
  return found === undefined ? null : (found[0] as NodeJS.Signals);
}

const inUse = new Set<number>();

/**
 * A user id for one run, none other in this process holds; give it back with {@link releaseRunUid}.
 * Across processes on one host ids are drawn at random from 2^24: two runs that drew the same
 * one still see neither each other's processes nor each other's files (their namespaces).
 */
export function takeRunUid(random: (max: number) => number = randomInt): number {
  for (;;) {
    const uid = RUN_UID_BASE + random(RUN_UID_COUNT);
    if (inUse.has(uid)) continue;
    inUse.add(uid);
    return uid;
  }
}

export function releaseRunUid(uid: number): void {
  inUse.delete(uid);
}
