import { isTierName, TIER_SLUGS } from '@tierflow/protocol';
import type { AuditRecord } from '@tierflow/runtime/admin';
import { textTable } from './text-table.js';

const HEADER = ['TIME', 'FROM', 'TO', 'KIND', 'DIRECTION', 'ID', 'STATUS', 'CONFIDENCE', 'DETAIL'];

/** A run's audit trail as a table, one handoff a line, in the order it was written. */
export function renderAudit(records: readonly AuditRecord[]): string {
  const rows = records.map((record) => [
    record.time,
    slugOf(record.from),
    slugOf(record.to),
    record.kind,
    record.direction,
    record.id,
    record.status || '-',
    record.confidence === null ? '-' : record.confidence.toFixed(2),
    [record.detail, record.attempt !== null && record.attempt > 1 ? `attempt ${record.attempt}` : ''].filter((part) => part !== '').join(', '),
  ]);
  return textTable(HEADER, rows);
}

function slugOf(party: string): string {
  return isTierName(party) ? TIER_SLUGS[party] : party;
}
