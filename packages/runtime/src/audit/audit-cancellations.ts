import type { CancellationMessage, TierName } from '@tierflow/protocol';
import { appendAudit, type AuditEntry, type AuditWrites } from './audit-entry.js';
import { auditKey } from '../redis/keys.js';
import { DEFAULT_AUDIT_TTL_MS } from '../config/runtime-settings.js';
import { rootIdOf } from '../messages/ids.js';

/**
 * Cancellations sent, one entry per node marked, on the MULTI that writes the marks. Whoever
 * cancels (a tier, a watchdog in any process, or the client for an operator) may not know the
 * deployment's audit retention, so this sets a TTL only on a stream that has none.
 */
export function cancellationsSent(
  pipeline: AuditWrites,
  prefix: string,
  mark: CancellationMessage,
  nodes: readonly { readonly id: string; readonly tier: TierName }[],
  by: string,
  time: string,
): void {
  const entries = nodes.map((node): AuditEntry => ({
    time,
    from: mark.source_tier,
    to: node.tier,
    kind: 'cancellation',
    direction: 'sent',
    id: mark.id,
    correlation_id: node.id,
    status: '',
    confidence: null,
    by,
    attempt: null,
    detail: mark.payload.reason,
  }));
  appendAudit(pipeline, auditKey(prefix, rootIdOf(mark.payload.target_message_id)), entries, DEFAULT_AUDIT_TTL_MS, true);
}
