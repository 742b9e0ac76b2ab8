import { isTierName, TIER_SLUGS } from '@tierflow/protocol';
import type { AuditRecord } from '@tierflow/runtime';

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
  const widths = HEADER.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  // The last column is not padded: no trailing blanks.
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd();
  return `${[HEADER, ...rows].map(line).join('\n')}\n`;
}

function slugOf(party: string): string {
  return isTierName(party) ? TIER_SLUGS[party] : party;
}
