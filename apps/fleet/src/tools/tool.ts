/**
 * A tool an LLM specialist may call: a function of the project file, or one an MCP server serves.
 * The specialist's loop (tool-loop.ts) offers the model each tool as a function, runs the calls
 * the model asks for, and hands their results back to it.
 */
export interface Tool {
  /**
   * The tool's name as boundaries and `tools` selections see it (`tool:<name>`): a function
   * tool's own name, or `mcp:<server>/<tool>` for one an MCP server serves.
   */
  readonly name: string;
  readonly description: string;
  /** A JSON Schema of the arguments (an object schema), as the model is shown it. */
  readonly parameters: Readonly<Record<string, unknown>>;
  /** A person approves each call before it runs (the question path: `tierflow answer`, the dashboard). */
  readonly approve?: boolean;
  /**
   * Runs one call. `signal` fires when the run is cancelled or its deadline passes: stop at once
   * (an MCP tool tells its server). Throw for a failure the model should hear of; the loop hands
   * the model the error's message as the call's result.
   */
  run(args: Readonly<Record<string, unknown>>, context: ToolCallContext): Promise<ToolResult>;
}

/** What a running tool call is given. */
export interface ToolCallContext {
  readonly signal: AbortSignal;
  /** The model's id of the call (`call_…`). */
  readonly callId: string;
}

/** What a tool call gives back: text for the model; `isError` when the tool itself reports a failure. */
export interface ToolResult {
  readonly content: string;
  readonly isError?: boolean;
}

/** Where a specialist's tools come from when it runs: fixed functions, or MCP servers started on demand. */
export interface ToolSource {
  /**
   * The tools `patterns` select (a name, or a pattern with `*`: `mcp:files/*`). Throws
   * SpecialistUnavailableError, with the reason, when a server they need cannot be reached.
   */
  tools(patterns: readonly string[], signal: AbortSignal): Promise<readonly Tool[]>;
}
