import { z } from 'zod';

/** The one signature algorithm: HMAC-SHA256 with a key shared by the deployment's processes. */
export const SIGNATURE_ALG = 'hmac-sha256';

/**
 * A message's signature: which key, which algorithm, and the MAC over the message's canonical
 * form ({@link signingInput}). Optional on the wire; a deployment that signs refuses messages without it.
 */
export const messageSignatureSchema = z
  .looseObject({
    key_id: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,64}$/, { message: 'must be 1 to 64 letters, digits, ".", "_" or "-"' })
      .meta({ description: 'Which key signed: the id given with the key, or derived from a hash of it.' }),
    alg: z.literal(SIGNATURE_ALG).meta({ description: 'The MAC algorithm; only hmac-sha256.' }),
    value: z
      .string()
      .regex(/^[0-9a-f]{64}$/, { message: 'must be 64 lowercase hex digits (an HMAC-SHA256)' })
      .meta({ description: 'HMAC-SHA256 of the canonical JSON (RFC 8785) of the message without its signature, in hex.' }),
  })
  .meta({ title: 'MessageSignature', description: 'HMAC-SHA256 over the canonical form of the message, signature excluded.' });
export type MessageSignature = z.output<typeof messageSignatureSchema>;
