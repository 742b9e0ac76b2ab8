import { createHash } from 'node:crypto';
import { TierflowError } from '@tierflow/protocol';

/** A signing key: its id (sent in every signature) and its secret (never logged: it serialises as its id). */
export class SigningKey {
  readonly #secret: Buffer;

  constructor(
    readonly id: string,
    secret: string,
  ) {
    this.#secret = Buffer.from(secret, 'utf8');
  }

  get secret(): Buffer {
    return this.#secret;
  }

  toJSON(): { id: string } {
    return { id: this.id };
  }
}

/** What a deployment that signs needs: the key it signs with, the one it is rotating out, and the clock window. */
export interface SigningConfig {
  /** Signs every message sent; accepted on receipt. */
  readonly current: SigningKey;
  /** Accepted on receipt, never used to sign: the key being rotated out. */
  readonly previous: SigningKey | null;
  /** How far a message's timestamp may lie from its job's enqueue time, or ahead of the receiver's clock. */
  readonly maxClockSkewMs: number;
}

export const SIGNING_ENV = {
  key: 'TIERFLOW_SIGNING_KEY',
  previous: 'TIERFLOW_SIGNING_KEY_PREVIOUS',
  skew: 'TIERFLOW_MAX_CLOCK_SKEW_MS',
} as const;

/** ±5 minutes, the usual allowance for clocks kept by NTP. */
export const DEFAULT_MAX_CLOCK_SKEW_MS = 5 * 60_000;
/** HMAC-SHA256 wants 32 bytes of key; a shorter text is a typo or a guessable secret. */
export const MIN_SECRET_LENGTH = 32;

const ID_AND_SECRET = /^([A-Za-z0-9._-]{1,64}):(.+)$/s;

/**
 * A key as written in the environment: `id:secret`, or the secret alone, whose id is then the
 * first 16 hex digits of SHA-256 over `tierflow-key-id:` and the secret, so every process derives
 * the same id and the id reveals nothing useful about the secret.
 *
 * @throws TierflowError (permanent, code `invalid_config`) for a secret shorter than 32 characters.
 */
export function parseSigningKey(text: string, variable: string): SigningKey {
  const match = ID_AND_SECRET.exec(text);
  const secret = match ? match[2]! : text;
  if (secret.length < MIN_SECRET_LENGTH) {
    throw TierflowError.permanent(`${variable} must be at least ${MIN_SECRET_LENGTH} characters (e.g. \`openssl rand -hex 32\`)`, { code: 'invalid_config' });
  }
  const id = match ? match[1]! : `k-${createHash('sha256').update(`tierflow-key-id:${secret}`).digest('hex').slice(0, 16)}`;
  return new SigningKey(id, secret);
}

/**
 * Signing settings from TIERFLOW_SIGNING_KEY (current), TIERFLOW_SIGNING_KEY_PREVIOUS (also
 * accepted) and TIERFLOW_MAX_CLOCK_SKEW_MS; null when no key is set: then nothing is signed or checked.
 *
 * @throws TierflowError (permanent, code `invalid_config`) for a bad key, a previous key without a
 *   current one, two different keys under one id, or a skew that is not a positive number.
 */
export function signingFromEnv(env: NodeJS.ProcessEnv): SigningConfig | null {
  const currentText = env[SIGNING_ENV.key] || undefined;
  const previousText = env[SIGNING_ENV.previous] || undefined;
  if (!currentText) {
    if (previousText) throw TierflowError.permanent(`${SIGNING_ENV.previous} is set without ${SIGNING_ENV.key}`, { code: 'invalid_config' });
    return null;
  }
  const current = parseSigningKey(currentText, SIGNING_ENV.key);
  const previous = previousText ? parseSigningKey(previousText, SIGNING_ENV.previous) : null;
  if (previous && previous.id === current.id && !previous.secret.equals(current.secret)) {
    throw TierflowError.permanent(`${SIGNING_ENV.key} and ${SIGNING_ENV.previous} are different keys with the same id "${current.id}"`, { code: 'invalid_config' });
  }
  const skewText = env[SIGNING_ENV.skew];
  const maxClockSkewMs = skewText ? Number(skewText) : DEFAULT_MAX_CLOCK_SKEW_MS;
  if (!Number.isSafeInteger(maxClockSkewMs) || maxClockSkewMs <= 0) {
    throw TierflowError.permanent(`${SIGNING_ENV.skew}=${JSON.stringify(skewText)} must be a positive whole number of milliseconds`, { code: 'invalid_config' });
  }
  return { current, previous: previous && previous.id !== current.id ? previous : null, maxClockSkewMs };
}
