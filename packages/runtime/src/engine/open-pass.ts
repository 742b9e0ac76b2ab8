import { beadsHandle, DeferredBeadsStore } from '@tierflow/beads';
import { ROOT_CONTEXT, type Link, type Span } from '@opentelemetry/api';
import { resolveErrorPolicy, type TierName } from '@tierflow/protocol';
import type { Job } from 'bullmq';
import { deadlineOf, receiverMarginMs } from '../deadlines/timing.js';
import { QUEUE_OF } from '../messages/queues.js';
import { deserialiseContext, linkTo, startProcessSpan, trace } from '../observability/tracing.js';
import type { Assignment, TierContext } from '../policy/handler.js';
import type { GenAiConventions } from '../observability/gen-ai/conventions.js';
import { lockKey } from '../redis/bullmq-keys.js';
import { FencedBatch } from '../redis/fenced-batch.js';
import { inFlightTtlMs } from '../config/retention.js';
import { PROGRESS_INTERVAL_MS } from '../progress/progress.js';
import { progressReporter } from '../progress/progress-reporter.js';
import type { Engine, Pass } from './pass.js';
import type { TierRole } from './role.js';
import type { PassLock } from './pass-writer.js';
import type { StepState } from '../steps/step-store.js';
import { hopUsage } from '../budget/hop-usage.js';
import { nodeCalls } from '../recording/node-calls.js';
import { nodeToolCalls } from '../tools/node-tool-calls.js';
import { openReceipt } from '../recording/receipt.js';
import type { NodeRerun } from '../rerun/node-rerun.js';
import type { Reused } from '../rerun/reuse.js';

/** What a pass opens with. */
export interface PassInput {
  readonly job: Job;
  readonly token: string | undefined;
  readonly assignment: Assignment;
  /** Whether the deployment's receive interceptors changed the delegation: the step state then keeps it as they left it. */
  readonly changedOnReceipt?: boolean;
  readonly signal: AbortSignal;
  readonly span: Span;
  readonly startedAt: number;
  readonly answerBy: number | null;
  /** How long the job has waited for people's answers (see TierContext.waitedMs). */
  readonly waitedMs: number;
  readonly childValues: Record<string, unknown> | null;
  /** The race record of the job's round (JobFacts.race). */
  readonly race: string | null;
  /** Its part in a rerun (JobFacts.rerun), or null. */
  readonly rerun: NodeRerun | null;
  /** In a fork, the outcome it answers with instead of running. */
  readonly reused: Reused | null;
  /** A delivery of the work (not a parent resuming): its delegation goes on the node's record. */
  readonly receipt: boolean;
  /**
   * The id its first model call waits under when a long wait may park the job (ModelParking): a
   * pass with no round, so starting it again loses nothing; null: its calls wait where they are.
   */
  readonly parkAs: string | null;
}

/**
 * What opening a pass uses: the tier's role and settings for its rules, Redis, the clock and the
 * writer for the policy's Beads, progress and usage, and the reader for its children's answers.
 */
export type PassOpener = Pick<Engine, 'tier' | 'party' | 'role' | 'runtime' | 'log' | 'redis' | 'clock' | 'keys' | 'reader' | 'audit' | 'meters' | 'writer' | 'recorder' | 'limiter'>;

/**
 * A pass's context. What the policy writes to Beads waits for the MULTI that sends its
 * delegations or its outcome; writes that must go first go out fenced by the pass's lock too.
 */
export function openPass(engine: PassOpener, input: PassInput): Pass {
  const { job, token, assignment, signal, span, startedAt, answerBy, waitedMs } = input;
  const lock: PassLock = { jobId: job.id!, key: lockKey(job), token: token ?? '' };
  const errorPolicy = resolveErrorPolicy(assignment.payload.error_policy, engine.runtime.errorPolicy);
  const { prefix, beadsTtlMs } = engine.runtime;
  const beads = new DeferredBeadsStore(engine.redis, { tier: engine.tier, prefix, defaultTtlMs: beadsTtlMs }, async (queue) => {
    const batch = new FencedBatch();
    queue(batch);
    await engine.writer.commit(batch, lock);
  });
  // The policy's calls go through the run's meter; the pass keeps what they settled for its answer.
  const hop = hopUsage(engine.meters.for(assignment.rootId, signal));
  // Its calls are recorded, replayed in a rerun that asks for it, and traced under the pass's span.
  const traceContext = trace.setSpan(ROOT_CONTEXT, span);
  const calls = nodeCalls(
    {
      recorder: engine.recorder,
      redis: engine.redis,
      replayKey: engine.keys.rerun(assignment.rootId).replay,
      trace: { parent: traceContext, genAi: engine.runtime.genAi },
      limiter: engine.limiter,
      priority: assignment.payload.priority,
      parkAs: input.parkAs,
      tools: nodeToolCalls(
        {
          boundaries: engine.runtime.boundaries,
          usage: hop.meter,
          recorder: engine.recorder,
          audit: engine.audit,
          trace: traceContext,
          replay: { mode: input.rerun?.replay ?? 'off', redis: engine.redis, key: engine.keys.rerun(assignment.rootId).replay },
        },
        assignment.rootId,
        assignment.id,
      ),
    },
    assignment.rootId,
    assignment.id,
    input.rerun?.replay ?? 'off',
    input.rerun?.spec.of ?? null,
  );
  const context: TierContext = {
    tier: engine.tier,
    assignment,
    attempt: job.attemptsMade + 1,
    redelivered: job.attemptsMade > 0 || (job.attemptsStarted ?? 1) > 1,
    maxAttempts: job.opts.attempts ?? 1,
    signal,
    answerBy,
    waitedMs,
    errorPolicy,
    beads: beadsHandle(beads),
    log: engine.log,
    traceContext,
    now: () => engine.clock.now(),
    usage: hop.meter,
    calls,
    progress: progressReporter({
      redis: engine.redis,
      key: engine.keys.progress(engine.party, assignment.rootId),
      rootId: assignment.rootId,
      messageId: assignment.id,
      ttlMs: inFlightTtlMs(engine.runtime),
      span,
      audit: engine.audit,
      log: engine.log,
      now: () => engine.clock.now(),
      intervalMs: PROGRESS_INTERVAL_MS,
    }),
  };
  // The children's answers read with the job's facts serve the first read of the round; later ones read again.
  let preread = input.childValues;
  const childValues = (): Promise<Record<string, unknown>> | Record<string, unknown> => {
    const values = preread;
    preread = null;
    return values ?? engine.reader.childValues(job);
  };
  return {
    job,
    assignment,
    changedOnReceipt: input.changedOnReceipt ?? false,
    rules: {
      tier: engine.tier,
      attempt: context.attempt,
      maxAttempts: context.maxAttempts,
      asks: engine.role.kind === 'root' && engine.runtime.answerWaitMs > 0,
      waitsOnBlocked: engine.role.kind === 'root' && engine.runtime.blockedWaitMs > 0,
      onTimeout: errorPolicy.on_timeout,
      boundaries: engine.runtime.boundaries,
    },
    context,
    span,
    lock,
    beads,
    startedAt,
    race: input.race,
    reused: input.reused,
    receipt: input.receipt ? openReceipt(engine.recorder, engine.clock.now(), job, assignment, beads, input.rerun?.forkNode ? input.rerun.spec.edits : []) : null,
    answerBy,
    spent: () => hop.spent(),
    unrecordedCalls: () => calls.unrecorded(),
    childValues,
  };
}

/** A CONSUMER span per processing pass, child of the pass that sent its delegation; a resumed parent's pass links the pass that sent its round. */
export function processSpan(tier: TierName, role: TierRole, job: Job, assignment: Assignment, state: StepState | null, conventions: GenAiConventions = 'v1.41'): Span {
  // A round's children carry the context of the pass that sent them: one link for each round.
  const links = state ? [...new Set(state.children.map((child) => child.trace))].map(linkTo).filter((link): link is Link => link !== null) : null;
  // A root sent without an SDK carries no context: its first pass started the trace, and later passes join it.
  return startProcessSpan(
    deserialiseContext(job.opts.telemetry?.metadata ?? state?.trace),
    {
      messageId: assignment.id,
      correlationId: assignment.message?.correlation_id ?? assignment.rootId,
      rootId: assignment.rootId,
      tier,
      queue: QUEUE_OF[tier],
      taskType: assignment.payload.task_type,
      // The agent the Fleet runs: the one the delegation pins, else the one it names.
      specialist: role.namesSpecialist ? (assignment.payload.target_agent?.agent_id ?? assignment.payload.specialist_hint) : null,
      attempt: job.attemptsMade + 1,
      routing: assignment.payload.routing,
    },
    links,
    conventions,
  );
}

/**
 * When this job must answer: its deadline (sent time + timeout_ms) less the receiver's margin,
 * plus the time it has waited for a person's answers (`pausedMs`), which its deadline does not count.
 */
export function answerByOf(job: Job, assignment: Assignment, pausedMs = 0): number | null {
  const timeout = assignment.payload.timeout_ms;
  const sentAt = assignment.message ? Date.parse(assignment.message.timestamp) : job.timestamp;
  const deadline = deadlineOf(sentAt, timeout);
  return deadline === null || timeout === null ? null : deadline - receiverMarginMs(timeout) + pausedMs;
}
