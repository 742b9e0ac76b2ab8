/** How `tierflow up` restarts a tier process that exits on its own. */
export interface RestartPolicy {
  /** The delay before the first restart in a row. */
  readonly firstDelayMs: number;
  /** Delays double with each restart in a row, up to this. */
  readonly maxDelayMs: number;
  /** A process that stayed up this long before it exited starts a new row: its restart waits the first delay again. */
  readonly stableAfterMs: number;
  /** A process silent this long (no beat: liveness.ts) is killed (SIGKILL) and restarted as if it had died. */
  readonly livenessMs: number;
}

/** A minute without a beat: twice the default lock, past which the worker's jobs are taken back anyway. */
export const DEFAULT_LIVENESS_MS = 60_000;

/** 1 s, doubling, at most 30 s; a process up for a minute counts as healthy again; killed after a minute's silence. */
export const DEFAULT_RESTART_POLICY: RestartPolicy = { firstDelayMs: 1_000, maxDelayMs: 30_000, stableAfterMs: 60_000, livenessMs: DEFAULT_LIVENESS_MS };

/** Exit status 2 from `tierflow worker`: it cannot run as configured (a bad variable, an unknown tier). */
export const CONFIG_ERROR_EXIT = 2;

/** Which restart in a row this one is, given the last one's and how long the process stayed up. */
export function restartsInARow(previous: number, upMs: number, policy: RestartPolicy = DEFAULT_RESTART_POLICY): number {
  return upMs >= policy.stableAfterMs ? 1 : previous + 1;
}

/** The delay before the `nth` restart in a row (1 for the first): the first delay, doubled each time, capped. */
export function restartDelayMs(nth: number, policy: RestartPolicy = DEFAULT_RESTART_POLICY): number {
  const doublings = Math.max(0, Math.floor(nth) - 1);
  // 2 ** doublings overflows to Infinity long after the cap, so Math.min still holds.
  return Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** doublings);
}

/**
 * What to do when a tier process exits without being asked to: restart it, or, for a
 * configuration error (exit status 2), which a restart would only repeat, stop everything.
 */
export function exitVerdict(code: number | null): 'restart' | 'config-error' {
  return code === CONFIG_ERROR_EXIT ? 'config-error' : 'restart';
}

/** `exit status 1`, `signal SIGKILL`: how a process ended, for the log. */
export function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `signal ${signal}` : `exit status ${code ?? '?'}`;
}
