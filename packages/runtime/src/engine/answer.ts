import type { OutcomeMessage } from '@tierflow/protocol';
import { roundKeyOf } from '../cancellation/control-keys.js';
import { winRace } from '../cancellation/race.js';
import { withExpectedOutput } from '../checks/expected-output.js';
import type { OutcomeDraft, SettledChild } from '../policy/handler.js';
import { FencedBatch } from '../redis/fenced-batch.js';
import { partyOf } from '../security/party.js';
import { signRecord } from '../security/signing.js';
import type { Engine, Pass } from './pass.js';
import type { StepState } from './step-store.js';
import { usageBelow, withUsageBelow } from './usage-rollup.js';

/**
 * Sends a job's outcome. One fenced MULTI records it for de-duplication, lands the policy's Beads
 * writes and the audit entries, and lets go of the job's step state, its watchdog and the control
 * records it wrote; a first_success child that succeeded then cancels its siblings.
 */
export async function answer(engine: Engine, pass: Pass, state: StepState | null, draft: OutcomeDraft, received: readonly SettledChild[]): Promise<OutcomeMessage> {
  const { job, assignment } = pass;
  const now = engine.clock.now();
  // A parent that delegated reports what its whole subtree used, whatever its policy wrote.
  const full = state === null ? draft : withUsageBelow(draft, usageBelow(state, received));
  const built = engine.role.outcome({ tier: engine.tier, assignment, state, draft: full, durationMs: now - pass.startedAt, now });
  // Signed before it is cached, so a duplicate delivery answered from the cache is signed too.
  const outcome = signRecord(withExpectedOutput(assignment.payload, built), engine.signer);
  const raceKey = assignment.message ? roundKeyOf(assignment.id) : null;
  const parentParty = assignment.message ? partyOf(assignment.message.source_tier) : null;
  const batch = new FencedBatch();
  engine.dedup.record(batch, assignment.id, outcome);
  pass.beads.writeInto(batch);
  engine.audit.outcomesReceived(batch, assignment, received);
  await engine.audit.outcomeSent(batch, assignment, outcome);
  batch.del(engine.steps.key(job.id!), ...settledRecords(engine, job.id!, state));
  // The round settled: its watchdog has nothing left to do.
  if (state?.watchdog) batch.zrem(engine.keys.watchdogs(engine.party), state.watchdog);
  if (raceKey && parentParty) batch.get(engine.keys.race(parentParty, raceKey));
  const replies = await engine.commit(batch, pass.lock);
  const race = raceKey ? replies.at(-1) : null;
  if (typeof race === 'string' && raceKey && parentParty && outcome.payload.status === 'success') {
    await winRace(engine, { winner: assignment.id, raceKey, race, parent: parentParty });
  }
  return outcome;
}

/**
 * What this tier wrote for a job's work and can let go of once the job has answered (beside its
 * step state): the job's own timeout record and a first_success sibling's mark on it, and for its
 * children, the timeout records and cancellation marks this tier wrote, and its races. Records
 * other parties wrote (a parent's mark, the parent's timeout record, which the parent reads)
 * are theirs: they expire.
 */
function settledRecords(engine: Engine, jobId: string, state: StepState | null): string[] {
  const { keys, party } = engine;
  const records = [keys.timeout(party, jobId), keys.cancel(party, jobId)];
  for (const child of state?.children ?? []) records.push(keys.timeout(party, child.id), keys.cancel(party, child.id));
  for (let round = 0; state && round <= state.round; round++) records.push(keys.race(party, `${jobId}.${round}`));
  return records;
}
