import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import type { TestCertificates } from './certificates.js';

/**
 * An ioredis client for `url` with `maxRetriesPerRequest: null`, which BullMQ requires of the
 * connections it blocks on; with `tls`, it trusts the test CA and shows the client certificate.
 * The caller closes it (`quit()` or `disconnect()`).
 */
export function redisClient(url: string, tls?: TestCertificates): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: null,
    ...(tls ? { tls: { ca: readFileSync(tls.ca), cert: readFileSync(tls.clientCert), key: readFileSync(tls.clientKey) } } : {}),
  });
}
