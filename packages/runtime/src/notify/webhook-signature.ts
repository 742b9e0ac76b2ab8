import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header that carries a delivery's signature: `t=<unix seconds>,v1=<hex>`. */
export const SIGNATURE_HEADER = 'Tierflow-Signature';
/** The header that carries the event's id, the same on every attempt: what a receiver de-duplicates on. */
export const EVENT_ID_HEADER = 'Tierflow-Event-Id';
/** How old a signature a receiver should take, by default: five minutes either way. */
export const DEFAULT_SIGNATURE_TOLERANCE_S = 300;

/** HMAC-SHA256 over `${timestamp}.${body}` with the secret, hex. Pure. */
export function webhookSignature(secret: string, timestampS: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestampS}.${body}`).digest('hex');
}

/** The `Tierflow-Signature` header of `body` sent at `timestampS` (unix seconds). Pure. */
export function webhookSignatureHeader(secret: string, timestampS: number, body: string): string {
  return `t=${timestampS},v1=${webhookSignature(secret, timestampS, body)}`;
}

export type SignatureVerdict = { readonly ok: true; readonly timestampS: number } | { readonly ok: false; readonly reason: 'malformed' | 'mismatch' | 'too_old' | 'in_future' };

export interface VerifyWebhookInput {
  /** The secret the subscription was given (the value of its `secretEnv`). */
  readonly secret: string;
  /** The `Tierflow-Signature` header as received. */
  readonly header: string | null | undefined;
  /** The request body exactly as received, before any JSON parsing. */
  readonly body: string;
  /** Now, in unix seconds. */
  readonly nowS: number;
  /** How far the signature's time may be from now, seconds ({@link DEFAULT_SIGNATURE_TOLERANCE_S} when left out). */
  readonly toleranceS?: number;
}

/**
 * Checks a delivery as a receiver should: the header's `v1` must be the HMAC of `t.body` with the
 * secret (compared in constant time; any of several `v1` values may match, for a secret being
 * rotated), and `t` within the tolerance of now, so a recorded delivery cannot be replayed later.
 * Pair it with a record of the `Tierflow-Event-Id`s seen within the window to refuse replays
 * inside it. Pure: never throws.
 *
 * ```ts
 * const verdict = verifyWebhookSignature({ secret, header: req.headers['tierflow-signature'], body: rawBody, nowS: Math.floor(Date.now() / 1000) });
 * if (!verdict.ok) return res.writeHead(401).end();
 * ```
 */
export function verifyWebhookSignature(input: VerifyWebhookInput): SignatureVerdict {
  const tolerance = input.toleranceS ?? DEFAULT_SIGNATURE_TOLERANCE_S;
  const parts = (input.header ?? '').split(',').map((part) => part.trim().split('='));
  const times = parts.filter(([key]) => key === 't').map(([, value]) => value ?? '');
  const signatures = parts.filter(([key, value]) => key === 'v1' && value !== undefined && /^[0-9a-f]{64}$/.test(value)).map(([, value]) => value!);
  if (times.length !== 1 || !/^\d{1,12}$/.test(times[0]!) || signatures.length === 0) return { ok: false, reason: 'malformed' };
  const timestampS = Number(times[0]);
  const expected = Buffer.from(webhookSignature(input.secret, timestampS, input.body), 'hex');
  const matches = signatures.some((signature) => timingSafeEqual(Buffer.from(signature, 'hex'), expected));
  if (!matches) return { ok: false, reason: 'mismatch' };
  if (timestampS < input.nowS - tolerance) return { ok: false, reason: 'too_old' };
  if (timestampS > input.nowS + tolerance) return { ok: false, reason: 'in_future' };
  return { ok: true, timestampS };
}
