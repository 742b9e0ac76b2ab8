import type { Usage } from '@tierflow/protocol';
import { callUsage, ZERO_USAGE, type ModelPrice } from './usage.js';

/** Characters per token when a prompt's tokens are estimated: the usual rule of thumb for English and code. */
export const CHARS_PER_TOKEN = 4;

/**
 * The output a call is reserved for when it sets no `max_tokens`: bounded, so that one call cannot
 * hold a whole budget, and generous enough for a structured answer. Output past it is counted when
 * the call settles.
 */
export const DEFAULT_RESERVED_OUTPUT_TOKENS = 1_024;

/** Tokens in `text`, estimated at {@link CHARS_PER_TOKEN} characters a token, rounded up. Pure. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/**
 * What a model call is reserved for before it is sent: its prompt estimated, its output at
 * `maxOutputTokens` (the most the endpoint may write), both at the model's price. Pure.
 */
export function callEstimate(prompt: string, maxOutputTokens: number | null | undefined, price: ModelPrice | null): Usage {
  return callUsage(estimateTokens(prompt), maxOutputTokens ?? DEFAULT_RESERVED_OUTPUT_TOKENS, price);
}

/** How a call ended, for what it is charged. */
export type CallEnd =
  /** Answered, with the endpoint's own token counts. */
  | { readonly kind: 'answered'; readonly tokensIn: number; readonly tokensOut: number }
  /** Answered without a `usage` field: the answer is all there is to count. */
  | { readonly kind: 'unreported'; readonly content: string }
  /** Sent, but no answer came (aborted, or the connection broke after it was sent): the provider may bill the prompt. */
  | { readonly kind: 'lost' }
  /** Never sent: no connection to the endpoint (refused, unknown host, TLS failure). No model saw it: not a call. */
  | { readonly kind: 'unsent' }
  /** The endpoint refused it with a status (busy, not found, bad request): nothing was generated. */
  | { readonly kind: 'refused' };

/** What a call is charged when it settles, and whether its tokens are an estimate. */
export interface CallCharge {
  readonly usage: Usage;
  /** The endpoint reported no usage: the tokens are estimated from the prompt and the answer. */
  readonly estimated: boolean;
}

/**
 * What a call that reserved `reserved` is charged, given how it ended. Pure: an answer is charged
 * what the endpoint counted; one without counts, its prompt estimate and its answer's estimate; a
 * call that got no answer, its prompt estimate (output of an aborted call is not known, and not
 * charged); a refused one, nothing. Each is one call, but for one never sent: nothing at all, not even the call.
 */
export function callCharge(reserved: Usage, end: CallEnd, price: ModelPrice | null): CallCharge {
  switch (end.kind) {
    case 'answered':
      return { usage: callUsage(end.tokensIn, end.tokensOut, price), estimated: false };
    case 'unreported':
      return { usage: callUsage(reserved.tokens_in, estimateTokens(end.content), price), estimated: true };
    case 'lost':
      return { usage: callUsage(reserved.tokens_in, 0, price), estimated: false };
    case 'refused':
      return { usage: { ...ZERO_USAGE, llm_calls: 1 }, estimated: false };
    case 'unsent':
      return { usage: ZERO_USAGE, estimated: false };
  }
}
