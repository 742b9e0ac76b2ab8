import { isIP } from 'node:net';

/** How many failures a client may have, over how long, and how many clients are remembered. */
export interface ThrottleLimits {
  /** Failures allowed in a burst; after them, one more per `windowMs / failures`. */
  readonly failures: number;
  readonly windowMs: number;
  /** Clients remembered at most; the one seen longest ago is forgotten first. */
  readonly maxClients: number;
}

/** Ten wrong tokens a minute from one client, and ten thousand clients remembered. */
export const SIGN_IN_LIMITS: ThrottleLimits = { failures: 10, windowMs: 60_000, maxClients: 10_000 };

interface Bucket {
  /** Failures it may still have now (fractional: they come back a little at a time). */
  tokens: number;
  at: number;
}

/**
 * Who an address counts as: itself, or for IPv6 its /64, which one holder commonly has whole (a
 * client that could take a new address per guess would otherwise never be throttled). Pure.
 */
export function clientKey(address: string): string {
  if (isIP(address) !== 6) return address;
  const [head = '', tail = ''] = address.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::') ? [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).join(':')}::/64`;
}

/**
 * A token bucket per client for failures (wrong tokens): each failure takes one, and they come
 * back at `failures` per `windowMs`. A client with none left waits. Pure: the caller gives the
 * time, and nothing but this map is kept.
 */
export class FailureThrottle {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly limits: ThrottleLimits = SIGN_IN_LIMITS) {}

  /** How long `client` must wait before it may try again, in ms; 0 when it may now. */
  waitMs(client: string, now: number): number {
    const bucket = this.refilled(clientKey(client), now);
    if (bucket === null || bucket.tokens >= 1) return 0;
    return Math.ceil((1 - bucket.tokens) / this.rate());
  }

  /** Counts a failure of `client`'s at `now`. */
  fail(client: string, now: number): void {
    const key = clientKey(client);
    const bucket = this.refilled(key, now) ?? { tokens: this.limits.failures, at: now };
    bucket.tokens = Math.max(0, bucket.tokens - 1);
    // Seen now: to the end of the order, so the oldest is first to be forgotten.
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    while (this.buckets.size > this.limits.maxClients) {
      const oldest = this.buckets.keys().next().value;
      if (oldest === undefined) break;
      this.buckets.delete(oldest);
    }
  }

  /** Clients remembered now (for tests and bounds). */
  get size(): number {
    return this.buckets.size;
  }

  private rate(): number {
    return this.limits.failures / this.limits.windowMs;
  }

  /** The client's bucket as of `now`, or null (and forgotten) once it is full again. */
  private refilled(key: string, now: number): Bucket | null {
    const bucket = this.buckets.get(key);
    if (!bucket) return null;
    bucket.tokens = Math.min(this.limits.failures, bucket.tokens + Math.max(0, now - bucket.at) * this.rate());
    bucket.at = Math.max(bucket.at, now);
    if (bucket.tokens >= this.limits.failures) {
      this.buckets.delete(key);
      return null;
    }
    return bucket;
  }
}
