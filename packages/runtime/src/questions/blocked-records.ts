import { blockerSchema, messageIdSchema, messageSignatureSchema, unblockNoteSchema } from '@tierflow/protocol';
import { z } from 'zod';
import { readStoredRecord } from '../redis/stored-record.js';
import { signRecord } from '../security/signing.js';
import { CLIENT } from '../security/party.js';
import type { Signer, SigningConfig } from '../security/signing-keys.js';

/**
 * A run waiting on blocked work, as the root publishes it at `<prefix>:blocked:<root id>` for
 * clients to read and unblock: what blocks it, since when, and until when the run waits. The
 * root's own copy is in its step state; this one is a view.
 */
export const blockedRunSchema = z.looseObject({
  root_id: z.string(),
  since: z.number(),
  until: z.number(),
  blockers: z.array(blockerSchema).min(1),
});
export type BlockedRun = z.output<typeof blockedRunSchema>;

/** A blocker lifted, kept by the client at `<prefix>:unblocks:<root id>`, a hash by blocker id. */
export const unblockRecordSchema = z.looseObject({
  blocker_id: messageIdSchema,
  note: unblockNoteSchema.shape.note,
  /** When it was lifted, on the deployment's clock. */
  unblocked_at: z.number(),
  signature: messageSignatureSchema.optional(),
});
export type UnblockRecord = z.output<typeof unblockRecordSchema>;

/** An unblock as stored: JSON, signed by the client when the deployment signs. */
export function unblockRecord(blockerId: string, note: string, unblockedAt: number, signer: Signer | null): string {
  return JSON.stringify(signRecord({ blocker_id: blockerId, note, unblocked_at: unblockedAt }, signer));
}

/** The blocked run in a stored view, or null for none, or one that does not parse. Never throws. */
export function readBlockedRun(text: string | null): BlockedRun | null {
  if (text === null) return null;
  const read = readStoredRecord(text, blockedRunSchema, { what: 'a blocked run' });
  return read.ok ? read.value : null;
}

export interface UnblocksRead {
  /** Blocker id → note, of the records that hold. */
  readonly notes: Map<string, string>;
  /** When the last of them was made; null for none. */
  readonly lastAt: number | null;
  /** Why each record that does not hold was ignored, by field. */
  readonly ignored: { readonly field: string; readonly reason: string }[];
}

/**
 * The unblocks in a run's unblocks hash. A record that is not JSON, not an unblock, filed under
 * another blocker, made before `since` (an earlier wait's) or, when the deployment signs, not
 * signed by the client is ignored, with the reason. Never throws.
 */
export function readUnblocks(hash: Record<string, string>, signing: SigningConfig | null, since: number): UnblocksRead {
  const notes = new Map<string, string>();
  const ignored: { field: string; reason: string }[] = [];
  let lastAt: number | null = null;
  for (const [field, text] of Object.entries(hash)) {
    const read = readStoredRecord(text, unblockRecordSchema, {
      what: 'an unblock',
      check: (record) => {
        if (record.blocker_id !== field) return `filed under ${field}, it lifts ${record.blocker_id}`;
        return record.unblocked_at < since ? 'made before the work was blocked' : null;
      },
      signedBy: { signing, writer: CLIENT },
    });
    if (read.ok) {
      notes.set(field, read.value.note);
      lastAt = Math.max(lastAt ?? 0, read.value.unblocked_at);
    } else {
      ignored.push({ field, reason: read.reason });
    }
  }
  return { notes, ignored, lastAt };
}
