import { clarificationsOf, inheritErrorPolicy, unblockedOf, type AgentIdentity, type DelegationMessage } from '@tierflow/protocol';
import { inheritedHandoff } from '../handoff/inherit-handoff.js';
import { pausedMs, withClarifications } from '../questions/questions.js';
import { withUnblockNotes } from '../questions/blocked.js';
import { UnrecoverableError } from 'bullmq';
import type { Assignment, DelegationDraft, SettledChild } from '../policy/handler.js';
import { roundKeyOf } from '../redis/keys.js';
import { raceRecord } from '../cancellation/control-records.js';
import { inFlightTtlMs } from '../config/retention.js';
import { nextWatch, watchMember } from '../deadlines/watchdog.js';
import { deadlineOf } from '../deadlines/timing.js';
import { buildDelegation } from '../messages/messages.js';
import { childMessageId } from '../messages/ids.js';
import { context as otelContext, roundSent, serialiseContext, trace } from '../observability/tracing.js';
import { FencedBatch } from '../redis/fenced-batch.js';
import { childValueKey } from '../redis/bullmq-keys.js';
import { addChildJobs, childJobs } from './child-jobs.js';
import type { DelegateStep } from '../policy/handler.js';
import type { Engine, Pass } from './pass.js';
import type { StepState } from '../steps/step-store.js';
import { subtasksBelow, usageBelow } from './usage-rollup.js';
import { runBudget, writeBudget } from '../budget/charge-usage.js';
import { sendDelegations } from './handoffs.js';
import { pinnedTo, tierPinOf } from '../security/tier-pins.js';

type Child = StepState['children'][number];

/**
 * What sending a round uses: the tier's role, settings, send interceptors and default budget; the
 * queue below; the records its batch is made of, the writer, and the reader of the job's marks.
 */
export type Delegator = Pick<Engine, 'tier' | 'party' | 'role' | 'runtime' | 'handoffs' | 'budget' | 'signer' | 'clock' | 'keys' | 'reader' | 'lowerQueue' | 'steps' | 'audit' | 'traces' | 'writer'>;

/** A round sent: its state, whether the job now waits for its children, and whether a cancellation mark on the job was read as the round went out. */
export interface SentRound {
  readonly state: StepState;
  readonly parked: boolean;
  readonly marked: boolean;
}

/**
 * Sends a policy's delegations in one script (PassWriter.sendRound): the new round's step state, the
 * policy's Beads writes, the audit entries, the round's watchdog and (for first_success) its race
 * record, then the child jobs, then the job's move to waiting for them. The job's cancellation
 * marks are read in the same script: a cancellation whose walk of the tree came before it missed
 * these children, and its mark is then already there.
 */
export async function delegate(engine: Delegator, pass: Pass, previous: StepState | null, step: DelegateStep, received: readonly SettledChild[]): Promise<SentRound> {
  const { job, assignment, span } = pass;
  const lowerQueue = engine.lowerQueue;
  if (!lowerQueue) throw new UnrecoverableError(`${engine.tier} has no tier below`);
  const round = previous === null ? 0 : previous.round + 1;
  // Read before the round's time is taken: reading the lock file is I/O.
  const pin = await lockedPin(engine);
  const now = engine.clock.now();
  const built = childMessages(
    engine,
    assignment,
    step.children.map((request, index) => ({ id: childMessageId(assignment.id, round, index), request: pinnedTo(request, pin) })),
    now,
  );
  // The interceptors see the round first: one that refuses a child stops it before anything is written.
  const messages = engine.handoffs.send ? await sendDelegations(engine.handoffs.send, engine, pass, built, now) : built;
  const active = trace.setSpan(otelContext.active(), span);
  const sendContext = roundSent(active, messages, lowerQueue.name);
  const state: StepState = {
    round,
    strategy: step.strategy,
    children: messages.map((message, index) => ({
      id: message.id,
      index,
      request: message.payload,
      deadline: deadlineOf(now, message.payload.timeout_ms),
      ...(sendContext ? { trace: sendContext } : {}),
    })),
    memo: step.memo ?? {},
    // The round that settled is counted now, with the new round's state: one write, so a crash cannot count it twice.
    usage: usageBelow(previous, received),
    subtasks: subtasksBelow(previous, received),
    answer_by: pass.answerBy,
  };
  if (pass.changedOnReceipt) state.received = assignment.payload;
  const paused = pausedMs(previous, now);
  if (paused > 0) state.paused_ms = paused;
  const own = previous?.trace ?? (job.opts.telemetry?.metadata ? undefined : serialiseContext(active));
  if (own) state.trace = own;
  const { keys, party } = engine;
  const watchAt = nextWatch(state, null);
  const watch = { parentId: job.id!, parentTier: engine.tier, round };
  if (watchAt !== null) state.watchdog = watchMember(watch);
  const batch = new FencedBatch();
  engine.steps.write(batch, job.id!, state);
  // The round's children, as this tier alone may record them: what the parent waits for.
  const ownChildren = keys.children(party, job.id!);
  batch.del(ownChildren);
  batch.sadd(ownChildren, ...messages.map((message) => childValueKey(lowerQueue, message.id)));
  batch.pexpire(ownChildren, inFlightTtlMs(engine.runtime));
  // The policy's Beads writes land with its delegations, before any child can read them.
  pass.beads.writeInto(batch);
  engine.audit.outcomesReceived(batch, assignment, received);
  engine.audit.delegationsSent(batch, assignment.rootId, messages);
  if (step.decisions && step.decisions.length > 0) engine.audit.decisionsMade(batch, assignment, messages, step.decisions);
  if (previous?.watchdog) batch.zrem(keys.watchdogs(party), previous.watchdog);
  // Answered: the run asks nothing now.
  if (previous?.awaiting) batch.del(keys.questions(assignment.rootId), keys.blocked(assignment.rootId));
  if (watchAt !== null) batch.zadd(keys.watchdogs(party), watchAt, watchMember(watch));
  const raceKey = roundKeyOf(messages[0]!.id);
  if (step.strategy === 'first_success' && raceKey) {
    batch.set(
      keys.race(party, raceKey),
      raceRecord(
        messages.map((message) => message.id),
        engine.signer,
      ),
      'PX',
      inFlightTtlMs(engine.runtime),
    );
  }
  // The root's first round sets the run's limits, before any child can spend against them.
  const budget = engine.role.kind === 'root' && previous === null ? runBudget(engine.budget, assignment.budget) : null;
  if (budget) writeBudget(batch, keys.budget(assignment.rootId), budget, inFlightTtlMs(engine.runtime));
  if (engine.role.recordsRunTrace && span.isRecording()) {
    batch.set(keys.trace(assignment.rootId), span.spanContext().traceId, 'PX', engine.runtime.keepFinishedMs, 'NX');
    engine.traces?.recorded(span.spanContext().traceId, assignment.rootId);
  }
  const markKeys = engine.reader.markKeys(job.id!);
  for (const key of markKeys) batch.get(key);
  const sent = await engine.writer.sendRound(
    batch,
    pass.lock,
    childJobs(messages, job, engine.runtime, step.delayMs ?? 0, () => sendContext),
  );
  const marks = sent.replies.slice(sent.replies.length - markKeys.length);
  return { state, parked: sent.parked, marked: await engine.reader.stoppedBy(job.id!, marks) };
}

/** Adds children of a saved round whose jobs do not exist (a round goes out whole: these were lost some other way). */
export async function addChildren(engine: Pick<Engine, 'tier' | 'signer' | 'clock' | 'runtime' | 'lowerQueue'>, pass: Pass, children: readonly Child[]): Promise<void> {
  const traces = new Map(children.map((child) => [child.id, child.trace]));
  const messages = childMessages(engine, pass.assignment, children, engine.clock.now());
  await addChildJobs(
    engine.lowerQueue!,
    childJobs(messages, pass.job, engine.runtime, 0, (id) => traces.get(id)),
  );
}

/** Puts the round's watchdog back if it is not in the set; one already there (due, or leased by a sweep) is left as it is. */
export async function keepWatch(engine: Pick<Engine, 'tier' | 'party' | 'keys' | 'redis'>, jobId: string, state: StepState): Promise<void> {
  const watchAt = nextWatch(state, null);
  if (watchAt === null) return;
  await engine.redis.zadd(engine.keys.watchdogs(engine.party), 'NX', watchAt, watchMember({ parentId: jobId, parentTier: engine.tier, round: state.round }));
}

/**
 * Validated delegation messages; the root's children have no correlation id, since the root is
 * not a message. The answers and unblock notes a job was sent with go down with its work, so
 * whoever asked or was blocked finds them; so does its error policy, field by field under the child's own (docs/protocol.md#error-policies),
 * and its thread and handoff constraints (docs/protocol.md#handoff-metadata).
 */
/** The identity the lock file gives the tier below, for a tier that pins it (security/tier-pins.ts); null without pins. */
async function lockedPin(engine: Pick<Engine, 'tier' | 'runtime'>): Promise<AgentIdentity | null> {
  const { pins } = engine.runtime.governance;
  return pins === null ? null : tierPinOf(engine.tier, await pins());
}

function childMessages(engine: Pick<Engine, 'tier' | 'signer' | 'runtime'>, assignment: Assignment, children: readonly { id: string; request: DelegationDraft }[], now: number): DelegationMessage[] {
  const correlation = assignment.message ? assignment.id : null;
  const answers = clarificationsOf(assignment.payload.task_data);
  const notes = unblockedOf(assignment.payload.task_data);
  return children.map((child) => {
    const policy = inheritErrorPolicy(child.request.error_policy, assignment.payload.error_policy);
    const request = inheritedHandoff(policy === undefined ? child.request : { ...child.request, error_policy: policy }, assignment.payload, engine.runtime.interceptors);
    return buildDelegation(engine.tier, child.id, correlation, withUnblockNotes(withClarifications(request, answers), notes), now, engine.signer, engine.runtime);
  });
}
