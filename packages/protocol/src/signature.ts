import { z } from 'zod';

/**
 * The one signature algorithm: Ed25519. Each tier and the client sign with their own private
 * key; every process holds the others' public keys, so a signature says which party sent it.
 */
export const SIGNATURE_ALG = 'ed25519';

/**
 * A message's signature: which key, which algorithm, and the Ed25519 signature over the
 * message's canonical form ({@link signingInput}). Optional on the wire; a deployment that signs
 * refuses messages without it.
 */
export const messageSignatureSchema = z
  .looseObject({
    key_id: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,64}$/, { message: 'must be 1 to 64 letters, digits, ".", "_" or "-"' })
      .meta({ description: "Which key signed: its id in the deployment's key set, which names the party that holds it." }),
    alg: z.literal(SIGNATURE_ALG).meta({ description: 'The signature algorithm; only ed25519.' }),
    value: z
      .string()
      .regex(/^[A-Za-z0-9_-]{86}$/, { message: 'must be 86 base64url characters (a 64-byte Ed25519 signature)' })
      .meta({ description: 'Ed25519 signature of the canonical JSON (RFC 8785) of the message without its signature, base64url without padding.' }),
  })
  .meta({ title: 'MessageSignature', description: 'Ed25519 over the canonical form of the message, signature excluded.' });
export type MessageSignature = z.output<typeof messageSignatureSchema>;
