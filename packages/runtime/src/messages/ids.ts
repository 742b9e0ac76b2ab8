import { randomUUID } from 'node:crypto';

/** A fresh root id (also the Monitor job's id). */
export function newRootId(): string {
  return randomUUID();
}

/**
 * A child delegation's id: its parent's id, the round (0 for the first delegation, 1 for a
 * revision or re-route, …) and its index. Deterministic, so a handler that crashed after adding
 * its children adds the same jobs again on retry, and the queue keeps only one of each.
 */
export function childMessageId(parentId: string, round: number, index: number): string {
  return `${parentId}.${round}-${index}`;
}

/** The id of the outcome answering a delegation: one outcome per delegation. */
export function outcomeMessageId(delegationId: string): string {
  return `${delegationId}.out`;
}

/** The root id a message id descends from: everything before the first dot. */
export function rootIdOf(messageId: string): string {
  const dot = messageId.indexOf('.');
  return dot === -1 ? messageId : messageId.slice(0, dot);
}
