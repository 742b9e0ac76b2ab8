import type { RunNotices } from '../notify/run-notices.js';
import type { DeferredBeadsStore } from '@tierflow/beads';
import type { ModelLimiter } from '../policy/model-calls.js';
import type { TierName, TierSlug } from '@tierflow/protocol';
import type { Job, Queue } from 'bullmq';
import type { Span } from '@opentelemetry/api';
import type { RedisClient } from '@tierflow/beads';
import type { AuditTrail } from '../audit/audit-trail.js';
import type { ControlKeys } from '../redis/keys.js';
import type { TierCanceller } from '../cancellation/tier-canceller.js';
import type { RuntimeOptions } from '../config/options.js';
import type { RedisClock } from '../deadlines/clock.js';
import type { Signer } from '../security/signing-keys.js';
import type { Assignment, TierContext, TierHandler, TierLogger } from '../policy/handler.js';
import type { DedupCache } from './dedup.js';
import type { JobFactsReader } from './job-facts.js';
import type { PassRules } from './pass-machine.js';
import type { TierRole } from './role.js';
import type { StepStore } from '../steps/step-store.js';
import type { Budget, Usage } from '@tierflow/protocol';
import type { UsageMeters } from '../budget/usage-meter.js';
import type { HandoffChains } from '../handoff/chain.js';
import type { RunTraces } from './run-traces.js';
import type { PassLock, PassWriter } from './pass-writer.js';
import type { RunRecorder } from '../recording/run-recorder.js';
import type { Reused } from '../rerun/reuse.js';
import type { Receipt } from '../recording/receipt.js';

/**
 * Which tier a worker's passes run at, and by what rules: its policy, the deployment's settings
 * and interceptors, and the default budget.
 */
export interface EnginePolicy {
  readonly tier: TierName;
  readonly party: TierSlug;
  readonly role: TierRole;
  readonly handler: TierHandler;
  readonly runtime: RuntimeOptions;
  /** The deployment's handoff interceptors, composed for each end (docs/protocol.md#handoff-interceptors). */
  readonly handoffs: HandoffChains;
  /** The default budget of runs (read at the root only); null for none. */
  readonly budget: Budget | null;
}

/** What passes read with: Redis and the deployment's clock, the key layouts, the job's records, the queue below. */
export interface EngineReads {
  readonly redis: RedisClient;
  readonly clock: RedisClock;
  readonly keys: ControlKeys;
  readonly reader: JobFactsReader;
  /** The queue of the tier below; null at the Fleet. */
  readonly lowerQueue: Queue | null;
}

/**
 * What passes write with: the writer every fenced write goes through, the records its batches are
 * made of (step state, answer cache, audit trail, signatures), and the writes of their own:
 * cancellation marks, usage meters, run traces.
 */
export interface EngineWrites {
  /** Every write of a pass, fenced by its job's lock. */
  readonly writer: PassWriter;
  readonly steps: StepStore;
  readonly dedup: DedupCache;
  readonly audit: AuditTrail;
  readonly signer: Signer | null;
  readonly canceller: TierCanceller;
  /** Each run's usage meter, for the policy's context. */
  readonly meters: UsageMeters;
  /** What each node did, into its run's recording (docs/operations.md#recording). */
  readonly recorder: RunRecorder;
  /** The deployment's shared model limits, handed to each pass's model calls. */
  readonly limiter: ModelLimiter;
  /** At the root: the runs' traces this process recorded, to mark once their spans are exported. */
  readonly traces?: RunTraces;
  /** What webhooks are told of runs (docs/operations.md#webhooks); absent when the deployment has none. */
  readonly notices?: RunNotices;
}

/**
 * What a tier worker's passes share, built once per worker (compose-cell.ts). Each effect of a
 * pass takes only the members it uses (a `Pick` of these), so its signature tells what it touches.
 */
export interface Engine extends EnginePolicy, EngineReads, EngineWrites {
  readonly log: TierLogger;
}

/** One pass of one job: what every phase of it works with. */
export interface Pass {
  readonly job: Job;
  readonly assignment: Assignment;
  /** Whether the receive interceptors changed the delegation: the step state then keeps it for later passes. */
  readonly changedOnReceipt: boolean;
  readonly rules: PassRules;
  /** What the policy sees: the assignment, the abort signal, Beads, the trace context. */
  readonly context: TierContext;
  readonly span: Span;
  readonly lock: PassLock;
  /** The policy's Beads writes, held for the MULTI that sends its delegations or its outcome. */
  readonly beads: DeferredBeadsStore;
  /** When the pass began, on the deployment's clock: an outcome's execution time counts from here. */
  readonly startedAt: number;
  /** The race record of the job's round when its parent races it (first_success), as the pass opened. */
  readonly race: string | null;
  /** When the job must answer (its deadline less the receiver's margin); null without a timeout. */
  readonly answerBy: number | null;
  /** In a fork, the outcome this node answers with instead of running (rerun/reuse.ts); null otherwise. */
  readonly reused: Reused | null;
  /** On a delivery (not a parent resuming), the delegation as taken up, for the node's recording; null otherwise, or with recording off. */
  readonly receipt: Receipt | null;
  /** How many of this pass's model calls went unrecorded, past the most a pass records. */
  unrecordedCalls(): number;
  /** What this pass's own model calls were charged so far (its policy's, through context.usage). */
  spent(): Usage;
  /** The children's answers: those read with the job's facts the first time, read afresh after. */
  childValues(): Promise<Record<string, unknown>> | Record<string, unknown>;
}
