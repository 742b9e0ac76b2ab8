import type { RedisClient } from '@tierflow/beads';
import { parseAuditFields, type AuditRecord } from './audit-entry.js';
import { auditKey } from '../redis/keys.js';

/** A run's audit trail in the order it was written; empty for an unknown root, or one past retention. */
export async function readAuditTrail(redis: RedisClient, prefix: string, rootId: string): Promise<AuditRecord[]> {
  const entries = await redis.xrange(auditKey(prefix, rootId), '-', '+');
  return entries.map(([id, fields]) => parseAuditFields(id, fields));
}
