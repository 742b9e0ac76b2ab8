import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isTierflowError } from '@tierflow/protocol';

/** A tool's answer: its JSON as text, for clients that read only text, and as structured content. */
export function jsonResult(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: value };
}

/** A refusal the caller (often a model) can act on: one sentence, flagged as an error, not a protocol failure. */
export function errorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/**
 * Runs a tool's work and answers any error it throws as an error result: a Tierflow error with its
 * stable code (`invalid_objective: …`, `not_waiting: …`), anything else with its message.
 */
export async function answering(work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (error) {
    if (isTierflowError(error)) return errorResult(`${error.code}: ${error.message}`);
    return errorResult(error instanceof Error ? error.message : String(error));
  }
}
