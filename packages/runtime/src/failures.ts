import { isTierflowError } from '@tierflow/protocol';
import { UnrecoverableError } from 'bullmq';
import type { OutcomeDraft } from './handler.js';

/** Permanent: retrying cannot help (seed 001). Unknown errors are taken as transient. */
export function isPermanent(error: unknown): boolean {
  return error instanceof UnrecoverableError || (isTierflowError(error) && !error.retryable);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The failed outcome a handler's error becomes once it will not be retried. */
export function failureDraft(error: unknown, attempts: number): OutcomeDraft {
  const detail = messageOf(error);
  if (isPermanent(error)) {
    return {
      status: 'failed',
      summary: `failed: ${detail}`,
      confidence: 0,
      error_type: isTierflowError(error) ? error.code : 'permanent_error',
      error_detail: detail,
      recoverable: false,
    };
  }
  return {
    status: 'failed',
    summary: `failed after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${detail}`,
    confidence: 0,
    error_type: 'retries_exhausted',
    error_detail: detail,
    recoverable: true,
  };
}
