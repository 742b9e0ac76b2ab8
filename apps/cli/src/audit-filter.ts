import { AUDIT_KINDS, type AuditKind, type AuditRecord } from '@tierflow/runtime/admin';
import { InvalidArgumentError } from 'commander';

export interface AuditFilter {
  /** Only entries of these kinds; every kind when none is named. */
  readonly kinds?: readonly AuditKind[];
  /** Show progress notes too: without it they are left out, unless `kinds` names `progress`. */
  readonly progress?: boolean;
}

/**
 * The entries `tierflow audit` shows. Progress notes outnumber the messages many times over in a
 * run that reports progress, and hid the handoffs an operator reads the trail for: they are
 * shown only when asked for. Pure.
 */
export function shownAudit(records: readonly AuditRecord[], filter: AuditFilter): AuditRecord[] {
  if (filter.kinds && filter.kinds.length > 0) return records.filter((record) => filter.kinds!.includes(record.kind));
  return filter.progress ? [...records] : records.filter((record) => record.kind !== 'progress');
}

/** Commander's parser for a repeatable `--kind`: each value one kind or several separated by commas. */
export function auditKindsOf(value: string, previous: readonly AuditKind[] = []): AuditKind[] {
  const kinds = value.split(',').map((kind) => kind.trim());
  for (const kind of kinds) {
    if (!(AUDIT_KINDS as readonly string[]).includes(kind)) throw new InvalidArgumentError(`unknown kind "${kind}"; the kinds are: ${AUDIT_KINDS.join(', ')}`);
  }
  return [...previous, ...(kinds as AuditKind[])];
}
