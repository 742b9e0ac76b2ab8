import { context as otelContext } from '../observability/tracing.js';
import { isStopReason, type StopReason } from '../cancellation/control-listener.js';
import { checkUpstream, reportChecks, withCascadeCheck } from '../checks/upstream-check.js';
import { withHandoffMetadata } from '../checks/handoff-metadata.js';
import type { SettledRound, Step } from '../policy/handler.js';
import { answer } from './answer.js';
import { collectRound, isPending, type CollectMode } from './collect-round.js';
import { addChildren, delegate, keepWatch, type SentRound } from './delegate.js';
import { isTerminal, transition, type PassEvent, type Phase, type PhaseEvents, type PhaseKind, type PhaseOf, type Terminal } from './pass-machine.js';
import type { Engine, Pass } from './pass.js';
import type { StepState } from '../steps/step-store.js';
import { askPeople, readWait } from './ask-people.js';
import { blockWork, readBlockedWait } from './block-work.js';
import { isBlockedWait } from '../questions/awaiting.js';
import { defer, orWait } from './defer.js';
import { HandoffRefusedError } from '../handoff/chain.js';
import type { TierCanceller } from '../cancellation/tier-canceller.js';
import { outcomeReceiver, reportRefusal } from './handoffs.js';
import { calibrateRound } from '../learning/calibrate-round.js';
import { tierBelow } from '@tierflow/protocol';

type Effect<K extends PhaseKind> = (engine: Engine, pass: Pass, phase: PhaseOf<K>) => Promise<PhaseEvents[K]>;
type Effects = { readonly [K in Exclude<PhaseKind, Terminal['kind']>]: Effect<K> };

/**
 * What each phase does, as the event it reports. The phases that work towards a decision report
 * any error as `failed` (or `stopped`, when the pass was cancelled or ran out of time meanwhile);
 * errors while delegating or answering go to BullMQ, which runs the job again. Each entry is
 * handed the whole engine; the effects it calls take only their part (their signatures say which).
 */
const EFFECTS: Effects = {
  // A fork's node outside its subtree answers with its original's outcome instead of running (rerun/reuse.ts).
  // A model call with no room that parks the pass (ModelParking) is the wait it asks for.
  fresh: ({ handler }, pass) => decision(pass, () => (pass.reused ? Promise.resolve({ kind: 'outcome', outcome: pass.reused.draft }) : orWait(() => handler.start(pass.context)))),
  corrupt: ({ canceller }, pass) =>
    // Its children are unknown to it now: stop whatever it had running, then answer.
    guarded(pass, async () => {
      await canceller.cancelPending(pass.job, `${pass.assignment.id} cannot read its own state`);
      return { type: 'cleared' } as const;
    }),
  poisoned: async ({ handler, log, canceller }, pass, phase) => {
    // Only a job that never delegated can have finished its policy's work before its workers died.
    const recorded = phase.state === null ? ((await handler.recorded?.(pass.context)) ?? null) : null;
    log.warn(recorded ? 'answering poison work from its recorded outcome' : 'poison work answered failed, not run again', { id: pass.job.id, crashes: phase.crashes });
    if (phase.state) await stopChildren(canceller, pass, phase.state);
    return { type: 'recalled', recorded };
  },
  collecting: (engine, pass, phase) => guarded(pass, () => readRound(engine, pass, phase.state, phase.mode)),
  stopping: (engine, pass, phase) => guarded(pass, () => readRound(engine, pass, phase.state, 'settled-only')),
  waiting: (engine, pass, phase) =>
    guarded(pass, async () => {
      if (phase.absent.length > 0) await addChildren(engine, pass, phase.absent);
      // Parked again on the same round: its watchdog must be there (a sweep may have let go of it while this pass ran).
      await keepWatch(engine, pass.job.id!, phase.state);
      return (await pass.job.moveToWaitingChildren(pass.lock.token)) ? ({ type: 'parked' } as const) : ({ type: 'woken' } as const);
    }),
  resuming: (engine, pass, phase) => decision(pass, () => resume(engine, pass, phase.round)),
  delegating: async (engine, pass, phase) => {
    let sent: SentRound;
    try {
      sent = await delegate(engine, pass, phase.previous, phase.step, phase.received);
    } catch (error) {
      if (!(error instanceof HandoffRefusedError)) throw error;
      reportRefusal(pass.span, engine.log, error);
      return { type: 'refused', error };
    }
    const { state, parked } = sent;
    // Stopped while the round went out, or marked before it (a cancellation's walk missed these children).
    if (pass.context.signal.aborted || sent.marked) await stopSent(engine, pass, state, parked);
    if (parked) {
      pass.span.setAttribute('tierflow.strategy', state.strategy);
      pass.span.addEvent('waiting for children', { children: state.children.length, round: state.round });
    }
    return { type: 'delegated', state, parked };
  },
  answering: async (engine, pass, phase) => ({ type: 'answered', outcome: await answer(engine, pass, phase) }),
  asking: async (engine, pass, phase) => {
    await askPeople(engine, pass, phase.state, phase.draft, phase.received);
    return { type: 'asked' };
  },
  blocking: async (engine, pass, phase) => {
    await blockWork(engine, pass, phase.state, phase.draft, phase.received);
    return { type: 'blocked' };
  },
  awaiting: (engine, pass, phase) =>
    guarded(pass, async () => {
      const { awaiting } = phase;
      if (isBlockedWait(awaiting)) {
        const read = await readBlockedWait(engine, pass, awaiting);
        if (read.kind === 'complete') return { type: 'unblocked', notes: read.notes } as const;
        return read.kind === 'expired' ? ({ type: 'answers_expired' } as const) : ({ type: 'answers_pending' } as const);
      }
      const read = await readWait(engine, pass, awaiting);
      switch (read.kind) {
        case 'complete':
          return { type: 'answers_complete', answers: read.answers } as const;
        case 'expired':
          return { type: 'answers_expired' } as const;
        case 'pending':
          return { type: 'answers_pending' } as const;
      }
    }),
  deferring: async (engine, pass, phase) => {
    await defer(engine, pass, phase.until, phase.reason);
    return { type: 'deferred' };
  },
};

/** Runs a pass from `first` to a terminal phase: answered, parked, or to be retried. */
export async function runPass(engine: Engine, pass: Pass, first: Phase): Promise<Terminal> {
  let phase = first;
  while (!isTerminal(phase)) phase = await advance(engine, pass, phase);
  return phase;
}

async function advance(engine: Engine, pass: Pass, phase: Exclude<Phase, Terminal>): Promise<Phase> {
  // The maps' types hold each phase to its own events; TypeScript cannot follow that through one lookup.
  const effect = EFFECTS[phase.kind] as (engine: Engine, pass: Pass, phase: Phase) => Promise<PassEvent>;
  return transition(phase, await effect(engine, pass, phase), pass.rules);
}

/** Stops the children of a round just sent: the pass was stopped while sending them. */
export function stopChildren(canceller: TierCanceller, pass: Pass, state: StepState): Promise<void> {
  return canceller.cancelAll(
    state.children.map((child) => child.id),
    `${pass.assignment.id} was stopped`,
  );
}

/**
 * Stops the children of a round that went out while the pass was being stopped. A parked job is
 * no longer this pass's to retry: should stopping fail, its next pass reads the same stop and
 * answers once its children have.
 */
async function stopSent(engine: Pick<Engine, 'canceller' | 'log'>, pass: Pass, state: StepState, parked: boolean): Promise<void> {
  try {
    await stopChildren(engine.canceller, pass, state);
  } catch (error) {
    if (!parked) throw error;
    engine.log.warn('could not stop the children of a round sent as the job was stopped', { id: pass.job.id, error: String(error) });
  }
}

/** Why the pass must stop now, if it must: cancelled, or out of time. */
function stopOf(pass: Pass): StopReason | null {
  const { signal } = pass.context;
  const reason: unknown = signal.reason;
  return signal.aborted && isStopReason(reason) ? reason : null;
}

async function guarded<E>(pass: Pass, effect: () => Promise<E>): Promise<E | { type: 'failed'; error: unknown } | { type: 'stopped'; stop: StopReason }> {
  try {
    return await effect();
  } catch (error) {
    const stop = stopOf(pass);
    return stop ? { type: 'stopped', stop } : { type: 'failed', error };
  }
}

/**
 * Runs a policy in its hop's trace context (with an async context manager, spans it starts without
 * a parent nest there); delegations it decides on after the pass was stopped are dropped.
 */
function decision(pass: Pass, policy: () => Promise<Step>) {
  return guarded(pass, async () => {
    const step = await otelContext.with(pass.context.traceContext, policy);
    const stop = step.kind === 'delegate' ? stopOf(pass) : null;
    return stop ? ({ type: 'stopped', stop } as const) : ({ type: 'decided', step } as const);
  });
}

async function readRound(engine: Pick<Engine, 'tier' | 'runtime' | 'handoffs' | 'log' | 'clock' | 'reader' | 'lowerQueue'>, pass: Pass, state: StepState, mode: CollectMode) {
  const round = await collectRound({
    job: pass.job,
    lowerQueue: engine.lowerQueue!,
    state,
    tier: engine.tier,
    mode,
    timedOut: (ids) => engine.reader.timedOut(ids),
    signing: engine.runtime.signing,
    attesting: engine.runtime,
    childValues: () => pass.childValues(),
    now: engine.clock.now(),
    receive: outcomeReceiver(engine, pass),
  });
  return isPending(round) ? ({ type: 'round_pending', absent: round.absent } as const) : ({ type: 'round_settled', round } as const);
}

/**
 * The policy's `resume`, after the round's Fleet leaves are calibrated against their history and
 * its outcomes pass the cascade check; its answer carries the gravest check and the round's
 * handoff metadata, aggregated.
 */
async function resume(engine: Pick<Engine, 'tier' | 'handler' | 'runtime' | 'log' | 'clock'>, pass: Pass, settled: SettledRound): Promise<Step> {
  const round = await calibrated(engine, pass, settled);
  const checked = checkUpstream(round, engine.tier, engine.runtime.cascade, engine.runtime.errorPolicy);
  reportChecks(pass.span, engine.log, checked);
  const { handler } = engine;
  const step: Step = handler.resume
    ? await handler.resume(pass.context, checked.round)
    : { kind: 'outcome', outcome: { status: 'failed', summary: `${engine.tier} cannot resume delegated work`, confidence: 0 } };
  return withHandoffMetadata(withCascadeCheck(step, checked.carried), checked.round);
}

/**
 * The round with its Fleet leaves' confidence calibrated against their specialists' history
 * (docs/protocol.md#calibrated-confidence), read through the pass's Beads in one read; a tier whose
 * children are not Fleet leaves, or with calibration off, reads nothing.
 */
async function calibrated(engine: Pick<Engine, 'tier' | 'runtime' | 'log' | 'clock'>, pass: Pass, round: SettledRound): Promise<SettledRound> {
  if (!engine.runtime.calibration || tierBelow(engine.tier) !== 'SPECIALIZED_FLEET') return round;
  const result = await calibrateRound(pass.context.beads, round, engine.clock.now(), { log: engine.log });
  for (const leaf of result.calibrated) {
    pass.span.addEvent('confidence_calibrated', {
      'tierflow.calibration.upstream_id': leaf.id,
      'tierflow.calibration.reported': leaf.reported,
      'tierflow.calibration.confidence': leaf.confidence,
      'tierflow.calibration.samples': leaf.samples,
    });
  }
  return result.round;
}
