import { isOutcome, validate, type OutcomeMessage } from '@tierflow/protocol';
import { checkSignature } from '../security/signing.js';
import type { SigningConfig } from '../security/signing-keys.js';

/**
 * A root's return value (as BullMQ gives it, or its JSON text) as an outcome message, or null;
 * in a deployment that signs, only one the Monitor signed. Never throws.
 */
export function asOutcome(value: unknown, signing: SigningConfig | null): OutcomeMessage | null {
  try {
    const result = validate(value);
    if (!result.ok || !isOutcome(result.value)) return null;
    // The signature covers the record as stored: JSON text when it comes as text.
    const raw: unknown = typeof value === 'string' ? JSON.parse(value) : value;
    return signing && !checkSignature(raw, signing, 'monitor').ok ? null : result.value;
  } catch {
    return null;
  }
}
