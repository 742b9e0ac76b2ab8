/**
 * A node's tool calls, as a specialist's tool loop sees them (docs/extending.md#tools): each is
 * admitted first (the caller's collaboration boundaries, the run's `max_tool_calls`), traced as an
 * `execute_tool {name}` span under the hop's, and recorded once it ended, on the run's recording
 * and its audit trail.
 */
export interface NodeToolCalls {
  /**
   * May `caller` (`fleet:<specialist>`) call tool `name` (`tool:<name>` in boundaries) now? Refused
   * with a reason when outside the caller's boundaries: the call is not made, and the model is told.
   * Counts the call against the run's budget.
   * @throws BudgetExceededError (code `budget_exceeded`) when the run has reached `max_tool_calls`:
   *   the run is being stopped.
   */
  admit(caller: string, name: string): Promise<ToolAdmission>;
  /** Starts a call's span; tell it how the call ended. Never throws. */
  observe(start: ToolCallStart): ToolCallObservation;
  /** Records a call once it has ended, however it ended (refused and denied ones too). Never throws, never waits. */
  record(call: ToolCall): void;
  /**
   * In a rerun that replays its recording (`tierflow rerun --replay`): what this very call (its
   * tool and arguments) gave when the run was recorded, to hand the model without running the
   * tool again; null: run it.
   * @throws TierflowError (permanent, code `replay_miss`) under a strict replay when nothing recorded matches.
   */
  replay?(name: string, args: unknown): Promise<RecordedToolResult | null>;
}

/** A tool call's result as a recording keeps it. */
export interface RecordedToolResult {
  readonly content: string;
  readonly isError: boolean;
}

export type ToolAdmission = { readonly ok: true } | { readonly ok: false; readonly reason: string };

export interface ToolCallStart {
  /** The tool's name (`read_notes`, `mcp:files/read_file`). */
  readonly name: string;
  /** The model's id of the call (`call_…`). */
  readonly callId: string;
  /** `function` for the project's functions, `extension` for an MCP server's tools (the GenAI conventions' `gen_ai.tool.type`). */
  readonly type: 'function' | 'extension';
}

/** How a tool call ended. */
export const TOOL_CALL_ENDS = ['ok', 'error', 'refused', 'denied', 'cancelled'] as const;
export type ToolCallEnd = (typeof TOOL_CALL_ENDS)[number];

/** One tool call of a node, as it is recorded. */
export interface ToolCall {
  readonly name: string;
  readonly call_id: string;
  /** Who called it: `fleet:<specialist>`. */
  readonly caller: string;
  /** The arguments as the tool got them (the model's, or a person's edit of them). */
  readonly arguments: unknown;
  /** What the model was handed back: the tool's result, or why there is none. */
  readonly result: string;
  readonly end: ToolCallEnd;
  /** Why it failed, was refused or denied; null when it answered. */
  readonly error: string | null;
  /** When it started, ms since the epoch. */
  readonly started_at: number;
  readonly latency_ms: number;
  /** Answered from a recording (a replayed rerun): the tool did not run. */
  readonly replayed?: boolean;
}

/** One tool call's observation. Never throws. */
export interface ToolCallObservation {
  /** The call ended: once, and last. */
  ended(end: ToolCallEnd, error: string | null, resultBytes: number): void;
}

/** Observes nothing. */
export const UNOBSERVED_TOOL_CALL: ToolCallObservation = { ended: () => undefined };
