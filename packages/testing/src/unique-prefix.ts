import { randomBytes } from 'node:crypto';

/**
 * A fresh key prefix for one test, e.g. `{t-store-3fa85f64}`: unique, so tests sharing a server
 * never see each other's keys, and hash-tagged, so everything under it lands in one Redis Cluster
 * slot as in production. Characters other than letters, digits, `-` and `_` in `label` become `-`
 * (a brace would break the hash tag).
 */
export function uniquePrefix(label: string): string {
  const safe = label.replace(/[^A-Za-z0-9_-]/g, '-');
  return `{t-${safe}-${randomBytes(4).toString('hex')}}`;
}
