import { resolveErrorPolicy, type OutcomeMessage, type TierSlug } from '@tierflow/protocol';
import { outcomeMessageId } from '../messages/ids.js';
import { withQuestions } from '../questions/questions.js';
import { withBlockers } from '../questions/blocked.js';
import { roundKeyOf, type ControlKeys } from '../redis/keys.js';
import { winRace, type RaceDeps } from '../cancellation/race.js';
import { withExpectedOutput } from '../checks/expected-output.js';
import type { OutcomeDraft } from '../policy/handler.js';
import { FencedBatch } from '../redis/fenced-batch.js';
import { partyOf } from '../security/party.js';
import { attestedOutcome } from '../security/attestations.js';
import { signRecord } from '../security/signing.js';
import type { Engine, Pass } from './pass.js';
import type { PhaseOf } from './pass-machine.js';
import type { StepState } from '../steps/step-store.js';
import { subtasksBelow, usageBelow, withHopUsage, withSubtasksBelow, withUsageBelow } from './usage-rollup.js';
import { HandoffRefusedError } from '../handoff/chain.js';
import { failureDraft } from './failures.js';
import { reportRefusal, sendOutcome } from './handoffs.js';
import { indexAnswer } from '../run-index/run-index.js';
import { inFlightTtlMs } from '../config/retention.js';
import { passEndEntries } from './record-pass.js';
import type { RecordEntryInput } from '../recording/record-entry.js';
import { securityFindingOf, type SecurityFinding } from '../audit/security-findings.js';
import { securityFound } from '../observability/tier-metrics.js';

type Answering = PhaseOf<'answering'>;

/**
 * What answering uses: the tier's role, settings and send interceptors to build the outcome, the
 * records its batch is made of, the writer, and for a first_success winner, what stops its siblings.
 */
export type Answerer = Pick<
  Engine,
  'tier' | 'party' | 'role' | 'runtime' | 'handoffs' | 'signer' | 'clock' | 'log' | 'keys' | 'reader' | 'steps' | 'dedup' | 'audit' | 'recorder' | 'writer' | 'notices'
> &
  RaceDeps;

/**
 * Sends a job's outcome. One fenced batch records it for de-duplication, lands the policy's Beads
 * writes and the audit entries, and lets go of the job's step state, its watchdog and the control
 * records it wrote. It goes with the job's completion (PassWriter.finish), in one script, except for
 * a first_success child that succeeded: that one writes first, then cancels its siblings, then
 * completes (its round's race record was read as the pass opened).
 */
export async function answer(engine: Answerer, pass: Pass, { state, draft, received, stop }: Answering): Promise<OutcomeMessage> {
  const { job, assignment } = pass;
  const now = engine.clock.now();
  // A parent that delegated reports what its whole subtree used, whatever its policy wrote.
  const own = { tier: engine.tier, outcomeId: outcomeMessageId(assignment.id) };
  const asked = withBlockers(withQuestions(draft, received, own), received, own);
  const build = (given: OutcomeDraft) => {
    // A hop's own calls count even when it answers with no result of its own (stopped, failed).
    const draft = withHopUsage(given, pass.spent());
    const full = state === null ? draft : withSubtasksBelow(withUsageBelow(draft, usageBelow(state, received)), subtasksBelow(state, received));
    return engine.role.outcome({ tier: engine.tier, assignment, state, draft: full, durationMs: now - pass.startedAt, now });
  };
  let built = build(asked);
  if (engine.handoffs.send) {
    try {
      built = await sendOutcome(engine.handoffs.send, engine.tier, pass, built, received);
    } catch (error) {
      if (!(error instanceof HandoffRefusedError)) throw error;
      // The refusal itself goes out without the chain: a job always answers.
      reportRefusal(pass.span, engine.log, error);
      built = build(failureDraft(error, 1));
    }
  }
  // Signed before it is cached, so a duplicate delivery answered from the cache is signed too.
  const onMismatch = resolveErrorPolicy(assignment.payload.error_policy, engine.runtime.errorPolicy).on_format_mismatch;
  // Attested before it is signed, so the signature covers the attestation (docs/protocol.md#attestations).
  const checked = withExpectedOutput(assignment.payload, built, onMismatch);
  const outcome = signRecord(attestedOutcome(checked, assignment.rootId, assignment.message?.payload ?? null, engine.signer !== null, engine.runtime), engine.signer);
  const parentParty = assignment.message ? partyOf(assignment.message.source_tier) : null;
  const batch = new FencedBatch();
  engine.dedup.record(batch, assignment.id, outcome);
  pass.beads.writeInto(batch);
  engine.audit.outcomesReceived(batch, assignment, received);
  // The cancellation this answers, for the audit: the mark that stopped the job, else (stopped another way) one read now.
  const cancellation = outcome.payload.status !== 'cancelled' ? null : (stop?.cancellation ?? (await engine.reader.marks([assignment.id])).get(assignment.id) ?? null);
  engine.audit.outcomeSent(batch, assignment, outcome, cancellation);
  const finding = securityFindingOf(outcome.payload);
  // A finding carried up from a child is that child's tier's, reported there once.
  if (finding && !received.some((child) => child.outcome.payload.error_type === finding.kind)) reportSecurityFinding(engine, pass, batch, outcome, finding);
  indexAnswer(batch, engine.keys, engine.party, {
    rootId: assignment.rootId,
    taskType: assignment.payload.task_type,
    outcome: outcome.payload,
    final: assignment.message === null,
    now,
    ttlMs: engine.runtime.auditTtlMs,
    budgetTtlMs: Math.max(engine.runtime.auditTtlMs, inFlightTtlMs(engine.runtime)),
  });
  if (engine.recorder.on) {
    const { tier } = engine.recorder;
    const answered: RecordEntryInput[] = [{ kind: 'outcome', node: assignment.id, tier, at: now, message: outcome }];
    if (pass.reused) answered.push({ kind: 'reused', node: assignment.id, tier, at: now, from: pass.reused.from });
    engine.recorder.write(batch, assignment.rootId, await passEndEntries(engine, pass, 'answered', null, answered));
  }
  batch.del(...(engine.reader.keepsSteps ? [engine.steps.key(job.id!)] : []), ...settledRecords(engine.keys, engine.party, job.id!, state));
  // The round settled: its watchdog has nothing left to do.
  if (state?.watchdog) batch.zrem(engine.keys.watchdogs(engine.party), state.watchdog);
  // A run that stops waiting for answers (cancelled, or the wait ran out) asks nothing any more.
  if (state?.awaiting) batch.del(engine.keys.questions(assignment.rootId), engine.keys.blocked(assignment.rootId));
  const { race } = pass;
  const raceKey = roundKeyOf(assignment.id);
  if (race === null || raceKey === null || parentParty === null || outcome.payload.status !== 'success') {
    // The writes go with the job's completion, in one script.
    engine.writer.finish(batch, pass.lock);
    return outcome;
  }
  // A first_success child that succeeded cancels its siblings once its answer is on record.
  await engine.writer.commit(batch, pass.lock);
  await winRace(engine, { winner: assignment.id, raceKey, race, parent: parentParty });
  return outcome;
}

/**
 * What this tier wrote for a job's work and can let go of once the job has answered (beside its
 * step state): the job's own timeout record and a first_success sibling's mark on it, the set of
 * the children it sent, and for its children, the timeout records and cancellation marks this
 * tier wrote, and its races. Records other parties wrote (a parent's mark, the parent's timeout
 * record, which the parent reads) are theirs: they expire.
 */
function settledRecords(keys: ControlKeys, party: TierSlug, jobId: string, state: StepState | null): string[] {
  const records = [keys.timeout(party, jobId), keys.cancel(party, jobId), ...(state ? [keys.children(party, jobId)] : [])];
  for (const child of state?.children ?? []) records.push(keys.timeout(party, child.id), keys.cancel(party, child.id));
  for (let round = 0; state && round <= state.round; round++) records.push(keys.race(party, `${jobId}.${round}`));
  return records;
}

/**
 * A security finding in the outcome (docs/protocol.md#target-agents): on the run's audit trail
 * with the outcome, as a span event and a metric, and to the deployment's webhooks (`security`).
 */
function reportSecurityFinding(engine: Answerer, pass: Pass, batch: FencedBatch, outcome: OutcomeMessage, finding: SecurityFinding): void {
  const { assignment } = pass;
  engine.audit.securityFound(batch, assignment, outcome, finding);
  pass.span.addEvent('security_finding', { 'error.type': finding.kind, 'tierflow.security.severity': finding.severity });
  securityFound(engine.tier, finding.kind);
  engine.log.warn('security finding', { id: assignment.id, kind: finding.kind, severity: finding.severity, detail: finding.message });
  // Queued before the batch commits: a pass that loses its lock and runs again names the same event, which is queued once.
  engine.notices?.security(assignment.rootId, { nodeId: assignment.id, key: outcome.id, summary: outcome.payload.summary, detail: { ...finding } });
}
