import { isTierflowError, TierflowError } from '@tierflow/protocol';
import { SpecialistThrottledError, SpecialistUnavailableError } from '../specialist.js';

/** What to do about a remote agent's failure to answer. */
export type A2aFailure = 'throttled' | 'unavailable' | 'unauthorized' | 'retryable' | 'permanent';

/**
 * An HTTP status the remote agent answered with, classified. Pure: 401 and 403 are a token it
 * does not take, 404 no agent there, 429 and 503 a busy one, 408, 409 and other 5xx worth another
 * try, any other refusal final.
 */
export function httpFailure(status: number): A2aFailure {
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 404) return 'unavailable';
  if (status === 429 || status === 503) return 'throttled';
  if (status === 408 || status === 409 || status >= 500) return 'retryable';
  return 'permanent';
}

/** JSON-RPC errors that say the request itself is wrong for this agent: sending it again cannot help. */
const REFUSALS = new Set([
  'RequestMalformedError',
  'ContentTypeNotSupportedError',
  'UnsupportedOperationError',
  'VersionNotSupportedError',
  'ExtensionSupportRequiredError',
  'TaskNotFoundError',
  'InvalidAgentResponseError',
]);

/**
 * An error of a call to the remote agent (an HTTP refusal, a JSON-RPC error, a lost connection)
 * as the error the Fleet acts on: throttled and unavailable route elsewhere, retryable is tried
 * again, anything else fails the subtask. Pure.
 */
export function a2aError(agent: string, error: unknown): Error {
  if (isTierflowError(error)) return error;
  const message = `${agent}: ${error instanceof Error ? error.message : String(error)}`;
  const name = error instanceof Error ? error.name : '';
  if (REFUSALS.has(name)) return TierflowError.permanent(message, { code: 'a2a_call_refused', cause: error });
  if (/No compatible transport/i.test(message)) return new SpecialistUnavailableError(`${message} (the agent offers neither JSON-RPC nor HTTP+JSON)`, { cause: error });
  return TierflowError.retryable(message, { code: 'a2a_call_failed', cause: error });
}

/** A non-2xx answer from the agent as the error {@link httpFailure} calls for, with the start of its body. */
export function httpError(agent: string, url: string, status: number, body: string): Error {
  const detail = `${agent}: ${url} answered HTTP ${status}${body ? `: ${body.slice(0, 300)}` : ''}`;
  switch (httpFailure(status)) {
    case 'throttled':
      return new SpecialistThrottledError(detail);
    case 'unavailable':
      return new SpecialistUnavailableError(detail);
    case 'unauthorized':
      return TierflowError.permanent(`${detail} (check the token: tokenEnv)`, { code: 'a2a_unauthorized' });
    case 'retryable':
      return TierflowError.retryable(detail, { code: 'a2a_call_failed' });
    case 'permanent':
      return TierflowError.permanent(detail, { code: 'a2a_call_refused' });
  }
}
