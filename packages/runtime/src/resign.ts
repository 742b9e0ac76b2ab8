import { isJsonObject } from '@tierflow/protocol';
import { signRecord } from './signing.js';
import type { SigningConfig } from './signing-keys.js';

/**
 * A refused job's data made fit to send again by an operator who holds the key: dated now (a
 * message's `timestamp`, a root's `submitted_at`, so it falls inside the clock window and its
 * deadline counts from now) and signed. An id that was already accepted stays refused.
 */
export function resignForReplay(data: unknown, signing: SigningConfig, now: number): unknown {
  if (!isJsonObject(data)) return data;
  const dated = data.kind === 'root' ? { ...data, submitted_at: new Date(now).toISOString() } : { ...data, timestamp: new Date(now).toISOString() };
  return signRecord(dated, signing);
}
