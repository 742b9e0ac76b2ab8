import type { TierSlug } from '@tierflow/protocol';
import { isUnresponsive, livenessCheckMs, livenessLimitMs, workerMessageKind } from './liveness.js';
import { DEFAULT_RESTART_POLICY, describeExit, exitVerdict, restartDelayMs, restartsInARow, type RestartPolicy } from './restart-policy.js';
import { spawnTiers, type TierProcesses } from './spawn-tiers.js';
import { ALL_TIERS } from './tiers.js';

/** What a supervisor reports. */
export interface SupervisorOutput {
  /** Each line a tier process prints. */
  readonly line: (tier: TierSlug, line: string) => void;
  /** What the supervisor itself has to say: exits, restarts, a configuration error. */
  readonly note: (text: string) => void;
}

export interface SupervisedTiers {
  /** The process of each tier now running (none while a tier waits to be restarted). */
  readonly current: (tier: TierSlug) => TierProcesses | null;
  /**
   * Resolves once everything has stopped: 0 when every process stopped cleanly, 1 when one did
   * not, 2 when a tier exited with a configuration error.
   */
  readonly done: Promise<number>;
  /** Stops restarting, and asks every process to stop (SIGTERM); `done` resolves when they have. */
  stop(): void;
}

interface Slot {
  readonly tier: TierSlug;
  processes: TierProcesses | null;
  restart: NodeJS.Timeout | null;
  /** Restarts in a row, each after the process died young. */
  restarts: number;
  /** When the running process last beat (or started). */
  lastBeatAt: number;
  /** Whether the running process said it is ready: until then it is held to its start's limit. */
  ready: boolean;
  /** Whether the running process was killed for its silence. */
  silenced: boolean;
}

/**
 * Runs each tier as its own `tierflow worker <tier>` process and keeps it running: a process
 * that exits on its own (a crash, a signal, any status) is started again after a back-off that
 * doubles while it keeps dying young ({@link RestartPolicy}). A process alive but silent (no beat
 * over its IPC channel for `livenessMs`: its event loop is blocked) is killed with SIGKILL, and
 * restarted the same way. Exit status 2 is a configuration error, which a restart would only
 * repeat: everything stops.
 */
export function superviseTiers(env: NodeJS.ProcessEnv, output: SupervisorOutput, tiers: readonly TierSlug[] = ALL_TIERS, policy: RestartPolicy = DEFAULT_RESTART_POLICY): SupervisedTiers {
  const slots = tiers.map((tier): Slot => ({ tier, processes: null, restart: null, restarts: 0, lastBeatAt: 0, ready: false, silenced: false }));
  let stopping = false;
  let configError = false;
  let finish: (code: number) => void = () => undefined;
  const done = new Promise<number>((resolve) => (finish = resolve));

  const start = (slot: Slot): void => {
    const startedAt = Date.now();
    const processes = spawnTiers(env, output.line, [slot.tier]);
    slot.processes = processes;
    slot.lastBeatAt = startedAt;
    slot.ready = false;
    slot.silenced = false;
    const child = processes.children.get(slot.tier)!;
    child.on('message', (message) => {
      const kind = workerMessageKind(message);
      if (kind !== null) slot.lastBeatAt = Date.now();
      if (kind === 'ready') slot.ready = true;
    });
    child.once('exit', (code, signal) => {
      if (stopping) return;
      if (exitVerdict(code) === 'config-error') {
        output.note(`${slot.tier} worker exited with status 2 (it cannot run as configured): stopping the others\n`);
        configError = true;
        stop();
        return;
      }
      const upMs = Date.now() - startedAt;
      slot.restarts = restartsInARow(slot.restarts, upMs, policy);
      const delayMs = restartDelayMs(slot.restarts, policy);
      const how = slot.silenced ? 'killed for its silence' : `exited (${describeExit(code, signal)})`;
      output.note(`${slot.tier} worker ${how} after ${seconds(upMs)}; restarting it in ${seconds(delayMs)} (restart ${slot.restarts} in a row)\n`);
      slot.processes = null;
      slot.restart = setTimeout(() => {
        slot.restart = null;
        if (!stopping) start(slot);
      }, delayMs);
    });
  };

  // A worker alive but silent serves nothing and holds its jobs until their locks lapse: killed, it is restarted.
  const liveness = setInterval(() => {
    const now = Date.now();
    for (const slot of slots) {
      const child = slot.processes?.children.get(slot.tier);
      const limitMs = livenessLimitMs(policy.livenessMs, slot.ready);
      if (!child || slot.silenced || child.exitCode !== null || child.signalCode !== null || !isUnresponsive(slot.lastBeatAt, now, limitMs)) continue;
      slot.silenced = true;
      const starting = slot.ready ? '' : ', still starting';
      output.note(`${slot.tier} worker (pid ${child.pid}) sent no heartbeat for ${seconds(now - slot.lastBeatAt)} (limit ${seconds(limitMs)}${starting}): killing it (SIGKILL)\n`);
      child.kill('SIGKILL');
    }
  }, livenessCheckMs(policy.livenessMs));

  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    for (const slot of slots) if (slot.restart) clearTimeout(slot.restart);
    const running = slots.map((slot) => slot.processes).filter((processes): processes is TierProcesses => processes !== null);
    void Promise.all(running.map((processes) => processes.stop())).then(() => {
      // Watched until every process is gone: one hung mid-stop is killed, so the stop ends.
      clearInterval(liveness);
      // Ended by the SIGTERM it was sent is a stop as asked: a worker handles SIGTERM while it runs,
      // so it dies of one only before it has started, or on its way out after a Ctrl-C of its own.
      const unclean = running.flatMap((processes) => [...processes.children.entries()].filter(([, child]) => child.exitCode !== 0 && child.signalCode !== 'SIGTERM'));
      for (const [tier, child] of unclean) output.note(`${tier} worker did not stop cleanly (${describeExit(child.exitCode, child.signalCode)})\n`);
      const clean = unclean.length === 0;
      finish(configError ? 2 : clean ? 0 : 1);
    });
  };

  for (const slot of slots) start(slot);
  return { current: (tier) => slots.find((slot) => slot.tier === tier)?.processes ?? null, done, stop };
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}
