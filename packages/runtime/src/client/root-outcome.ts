import { isOutcome, validate, type OutcomeMessage } from '@tierflow/protocol';
import { outcomeMessageId, rootIdOf } from '../messages/ids.js';
import { signatureProblem } from '../redis/stored-record.js';
import type { SigningConfig } from '../security/signing-keys.js';

/** A root's return value read for its client: the outcome, or why it is not one to take. */
export type RootOutcomeReading = { readonly outcome: OutcomeMessage } | { readonly refused: string };

/**
 * A root's return value (as BullMQ gives it, or its JSON text) as the outcome of run `rootId`,
 * or why not. The outcome must answer this very run — its id is the root's outcome id and it
 * answers the root or one of the root's delegations — so that another run's genuine outcome,
 * copied where this run's belongs, is refused; in a deployment that signs, the Monitor must
 * have signed it, and the signature covers both ids. Never throws.
 */
export function readRootOutcome(value: unknown, rootId: string, signing: SigningConfig | null): RootOutcomeReading {
  try {
    const result = validate(value);
    if (!result.ok || !isOutcome(result.value)) return { refused: 'not a valid outcome message' };
    const outcome = result.value;
    if (outcome.id !== outcomeMessageId(rootId) || outcome.correlation_id === null || rootIdOf(outcome.correlation_id) !== rootId) {
      return { refused: `it is outcome ${outcome.id}, answering ${outcome.correlation_id ?? 'nothing'}, not the outcome of run ${rootId}` };
    }
    if (!signing) return { outcome };
    // The signature covers the record as stored: JSON text when it comes as text.
    const problem = signatureProblem(typeof value === 'string' ? JSON.parse(value) : value, { signing, writer: 'monitor' });
    return problem === null ? { outcome } : { refused: problem };
  } catch {
    return { refused: 'not a valid outcome message' };
  }
}

/** {@link readRootOutcome}'s outcome, or null when it refuses one. */
export function asRootOutcome(value: unknown, rootId: string, signing: SigningConfig | null): OutcomeMessage | null {
  const reading = readRootOutcome(value, rootId, signing);
  return 'outcome' in reading ? reading.outcome : null;
}
