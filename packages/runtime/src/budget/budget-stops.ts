import { addUsage, budgetExceededReason, recordVerdict, reservationVerdict, type BudgetLimit } from '@tierflow/core';
import { ERROR_TYPES, messageIdSchema, type Budget, type Usage } from '@tierflow/protocol';
import type { RedisClient } from '@tierflow/beads';
import type { ControlKeys } from '../redis/keys.js';
import type { TierCanceller } from '../cancellation/tier-canceller.js';
import { rootObjectiveSchema, type RootObjective } from '../model/objective.js';
import { WatchdogSweeper } from '../deadlines/watchdog-sweeper.js';
import { throttledWarning } from '../observability/logger.js';
import { budgetStopped } from '../observability/tier-metrics.js';
import type { TierLogger } from '../policy/handler.js';
import { readStoredRecord, readStoredValue } from '../redis/stored-record.js';
import { CLIENT } from '../security/party.js';
import type { SigningConfig } from '../security/signing-keys.js';
import { runBudget } from './charge-usage.js';

/** A member of the budget-stops set: a root id, or null for anything else (which the sweep drops). */
export function parseBudgetStop(member: string): string | null {
  return messageIdSchema.safeParse(member).success ? member : null;
}

/** Whether a run's own records bear a budget stop out, and in words why (or why not). */
export type BudgetStopCheck = { readonly holds: true; readonly limit: BudgetLimit | 'max_tool_calls'; readonly reason: string } | { readonly holds: false; readonly reason: string };

/**
 * Whether a run is over budget, from its own records: its budget hash says a charge found it over
 * (`exceeded`, which the reserve and settle scripts set as they queue the stop), and its counts
 * bear that out against `budget`, the run's budget as the Monitor knows it (the objective's, over
 * the deployment's default): what settled calls spent has passed a limit, or a reservation was
 * refused, what was spent and held then leaving no room for the call it asked for. The hash's own
 * limits are not read: every tier that charges usage can write that hash, so a limit found there
 * proves nothing. Pure.
 */
export function checkBudgetStop(record: Readonly<Record<string, string>>, budget: Budget | null): BudgetStopCheck {
  if (!budget) return { holds: false, reason: 'the run has no budget' };
  if (record.exceeded === undefined) return { holds: false, reason: 'no charge found the run over its budget' };
  const whole = wholeFields(record);
  // A tool call refused: the run had made all the tool calls its budget allows.
  if (record.exceeded === 'max_tool_calls') {
    const max = budget.max_tool_calls;
    const made = whole('tool_calls');
    if (max !== undefined && made >= max) return { holds: true, limit: 'max_tool_calls', reason: `budget exceeded: max_tool_calls ${max} reached (${made} made)` };
    return { holds: false, reason: `its tool calls (${made}) are within its budget` };
  }
  const spent = spentOf(record);
  // Tokens held and asked are kept in and out together: the limit counts them so. What was held
  // when the reservation was refused counts, not what is held now: by the time the Monitor looks,
  // those calls may have settled below their reservations (the larger of the two, should a call
  // held then have settled into what is spent since: a stop a script made errs towards holding).
  const part = (tokens: string, micro: string): Usage => ({ tokens_in: whole(tokens), tokens_out: 0, cost_usd: whole(micro) / 1e6, llm_calls: 0 });
  const [heldNow, heldThen] = [part('held_tokens', 'held_micro_usd'), part('refused_held_tokens', 'refused_held_micro_usd')];
  const held = heldThen.tokens_in + heldThen.cost_usd > heldNow.tokens_in + heldNow.cost_usd ? heldThen : heldNow;
  const pending = { held, asked: part('refused_tokens', 'refused_micro_usd') };
  const recorded = recordVerdict(budget, spent);
  const reserved = reservationVerdict(budget, addUsage(spent, pending.held), pending.asked);
  const verdict = recorded.ok ? reserved : recorded;
  if (verdict.ok) return { holds: false, reason: `its count (${spent.llm_calls} calls, ${spent.tokens_in + spent.tokens_out} tokens, $${spent.cost_usd}) is within its budget` };
  return { holds: true, limit: verdict.limit, reason: budgetExceededReason(verdict.limit, budget, spent, pending) };
}

/** A field of the budget hash as a whole number, read leniently: anything else counts 0. */
function wholeFields(record: Readonly<Record<string, string>>): (field: string) => number {
  return (field) => {
    const value = Number(record[field]);
    return Number.isSafeInteger(value) && value > 0 ? value : 0;
  };
}

/** A run's counters from its budget hash, read leniently: a field that is not a whole number counts 0. */
export function spentOf(record: Readonly<Record<string, string>>): Usage {
  const whole = wholeFields(record);
  return { llm_calls: whole('llm_calls'), tokens_in: whole('tokens_in'), tokens_out: whole('tokens_out'), cost_usd: whole('cost_micro_usd') / 1e6 };
}

/**
 * The budget of run `rootId` from its root job's data (JSON text, or as BullMQ parsed it): the
 * objective's, over `defaults`. Null when the record is gone or is not this run's root (then
 * there is nothing to stop); in a deployment that signs, only a record the client signed counts.
 * Never throws.
 */
export function rootBudgetOf(data: unknown, rootId: string, defaults: Budget | null, signing: SigningConfig | null): Budget | null {
  const options = {
    what: 'a root record',
    check: (root: RootObjective) => (root.root_id === rootId ? null : `it is the root of ${root.root_id}, not ${rootId}`),
    signedBy: { signing, writer: CLIENT },
  };
  const read = typeof data === 'string' ? readStoredRecord(data, rootObjectiveSchema, options) : readStoredValue(data, rootObjectiveSchema, options);
  return read.ok ? runBudget(defaults, read.value.objective.budget) : null;
}

export interface BudgetStopDeps {
  readonly redis: RedisClient;
  readonly keys: ControlKeys;
  /** The Monitor's canceller: the run is cancelled in the Monitor's name, which every tier honours. */
  readonly canceller: TierCanceller;
  /** The key of a root's job (the Monitor queue's), whose data holds the objective and its budget. */
  readonly rootJobKey: (rootId: string) => string;
  /** The deployment's default budget (the Monitor's). */
  readonly defaultBudget: Budget | null;
  readonly signing: SigningConfig | null;
  /** Told of a stop the run's records do not bear out, which is dropped. */
  readonly dropped: (rootId: string, reason: string) => void;
}

/**
 * Cancels a run that went over its budget, with the cascade every cancellation uses; each of its
 * jobs answers `cancelled` with error_type `budget_exceeded`, keeping what had been done. A Fleet
 * cannot cancel a whole run in its own name (a tier stops only work below it), so it queues the
 * root and a Monitor process does it — once the run's own records bear the stop out
 * ({@link checkBudgetStop}): any tier can write the stops set, so an entry alone stops nothing.
 * Answers null: done (the sweep then drops the entry).
 */
export async function stopOverBudget(deps: BudgetStopDeps, rootId: string): Promise<null> {
  // Sent together, the two reads go in one write (see coalesceWrites); a failed one is tried again
  // at a later sweep, once the entry's lease is up.
  const [record, data] = await Promise.all([deps.redis.hgetall(deps.keys.budget(rootId)), deps.redis.hget(deps.rootJobKey(rootId), 'data')]);
  const check = checkBudgetStop(record, rootBudgetOf(data, rootId, deps.defaultBudget, deps.signing));
  if (!check.holds) {
    deps.dropped(rootId, check.reason);
    return null;
  }
  await deps.canceller.cancelWith(rootId, check.reason, ERROR_TYPES.budgetExceeded);
  budgetStopped(check.limit);
  return null;
}

/**
 * The Monitor's sweep of the budget-stops set: each run queued there is stopped once its records
 * bear the stop out, or dropped with a warning (at most one per 10 s, with how many were held back).
 */
export function budgetStopSweeper(deps: Omit<BudgetStopDeps, 'dropped'>, log: TierLogger, intervalMs: number): WatchdogSweeper<string> {
  const key = deps.keys.budgetStops;
  const dropped = throttledWarning(log, `dropped a budget stop on ${key} that the run's own count does not bear out`);
  return new WatchdogSweeper({
    redis: deps.redis,
    key,
    intervalMs,
    parse: parseBudgetStop,
    run: (rootId) => stopOverBudget({ ...deps, dropped: (id, reason) => dropped({ root_id: id, reason }) }, rootId),
    onError: (error) => log.warn('budget stop error', { error: String(error) }),
    onMalformed: (member) => log.warn('dropped a malformed budget stop', { key, member: member.slice(0, 200) }),
  });
}
