import type { BudgetStanding } from '@tierflow/core';
import type { Usage } from '@tierflow/protocol';

/** One model call's reservation: settle it once the call has ended, however it ended. */
export interface UsageReservation {
  /**
   * Releases the reservation and charges what the call used instead; `estimated` when the endpoint
   * reported no usage and the tokens are estimates. `llm_calls` 0 (core's `callCharge` of a call
   * never sent: no connection to the endpoint) takes back the count of the call too, since no
   * model saw it; any other value is ignored (the reservation counted the call). Settling twice
   * charges once. Never throws.
   */
  settle(usage: Usage, estimated?: boolean): Promise<void>;
}

/**
 * A run's meter, as the work that calls models sees it. `reserve` before each model call, with
 * what it may use at most (its prompt estimated and its output limit, priced: core's
 * `callEstimate`), and settle the reservation after it; together they count the run's calls,
 * tokens and cost in Redis, across every process, against the run's budget if it has one.
 */
export interface UsageMeter {
  /**
   * Counts one model call about to start, holding `estimate` for it until it settles (nothing held
   * without one: then record the call's usage with `record`). When only the run's calls in flight
   * stand in the way (on what settled calls used, this one would fit), it waits for them to
   * settle, up to a minute: one never sent gives back all it held.
   * @throws BudgetExceededError (permanent, code `budget_exceeded`) when the run has reached its
   *   budget, or the reservation would pass it: make no call.
   */
  reserve(estimate?: Usage): Promise<UsageReservation>;
  /**
   * Counts one tool call about to be made (an LLM specialist's tool loop), against the run's
   * `max_tool_calls`. Absent from a meter that counts none.
   * @throws BudgetExceededError (code `budget_exceeded`) when the run has made its `max_tool_calls`, or is over another limit.
   */
  toolCall?(): Promise<void>;
  /** Adds a finished call's tokens and cost, for a call reserved without an estimate. Never throws. */
  record(usage: Usage): Promise<void>;
  /**
   * The run's budget as it stands now: its limits (an empty object without any) and what it has
   * spent and holds, across every process. What a policy weighs before it starts another round
   * (the Architect before a revision). Absent from a meter that cannot tell.
   */
  standing?(): Promise<BudgetStanding>;
}
