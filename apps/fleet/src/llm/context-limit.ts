import { estimateTokens } from '@tierflow/core';
import { ERROR_TYPES, TierflowError } from '@tierflow/protocol';

/**
 * Whether a prompt of `promptTokens` (estimated as the budget estimates them, a token per four
 * characters) fits under a delegation's `handoff.max_context_tokens`; null or absent is no limit. Pure.
 */
export function contextFits(promptTokens: number, maxContextTokens: number | null | undefined): boolean {
  return maxContextTokens === null || maxContextTokens === undefined || promptTokens <= maxContextTokens;
}

/**
 * Refuses a prompt over the delegation's limit before the model is called
 * (docs/protocol.md#handoff-metadata): trying again builds the same prompt, so it is permanent.
 *
 * @throws TierflowError (permanent, code `context_too_large`) saying by how much.
 */
export function checkContextSize(prompt: string, maxContextTokens: number | null | undefined, specialist: string): void {
  const tokens = estimateTokens(prompt);
  if (contextFits(tokens, maxContextTokens)) return;
  throw TierflowError.permanent(`${specialist}: the prompt is about ${tokens} tokens, over the delegation's max_context_tokens of ${maxContextTokens}; the model was not called`, {
    code: ERROR_TYPES.contextTooLarge,
  });
}
