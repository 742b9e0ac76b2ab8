import { cellOf, connectReachable, readAuditChain, readAuditTrail, verifyAuditChain, type AuditKind } from '@tierflow/runtime/admin';
import { runtimeOptionsFromEnv } from '@tierflow/runtime';
import { shownAudit } from '../audit-filter.js';
import { EXIT, type CliIo } from '../io.js';
import { renderAudit } from '../render-audit.js';

export interface AuditOptions {
  readonly json?: boolean;
  readonly kind?: readonly AuditKind[];
  readonly progress?: boolean;
  readonly verify?: boolean;
}

/**
 * `tierflow audit <root-id> [--kind k]... [--progress] [--json] [--verify]`: the messages the run's
 * tiers sent and received, in order. Progress notes are left out of the table unless --progress (or
 * `--kind progress`) asks for them; --json keeps them, as scripts read it, unless --kind narrows it.
 * --verify checks the trail's hash chain instead, and exits 1 when an entry was edited, added by
 * hand or removed.
 */
export async function auditCommand(rootId: string, options: AuditOptions, io: CliIo): Promise<number> {
  const runtime = runtimeOptionsFromEnv();
  const redis = await connectReachable(runtime);
  try {
    if (options.verify) return await verifyCommand(redis, cellOf(runtime, rootId).prefix, rootId, options.json === true, io);
    const records = await readAuditTrail(redis, cellOf(runtime, rootId).prefix, rootId);
    if (records.length === 0) {
      io.stderr(`no audit trail for ${rootId} (unknown, or past its retention)\n`);
      return EXIT.invalid;
    }
    const shown = shownAudit(records, { ...(options.kind ? { kinds: options.kind } : {}), progress: options.progress === true || options.json === true });
    if (options.json) {
      io.stdout(`${JSON.stringify(shown, null, 2)}\n`);
      return EXIT.ok;
    }
    io.stdout(renderAudit(shown));
    const hidden = options.kind ? 0 : records.length - shown.length;
    if (hidden > 0) io.stdout(`(${hidden} progress note${hidden === 1 ? '' : 's'} not shown: --progress shows them)\n`);
    return EXIT.ok;
  } finally {
    redis.disconnect();
  }
}

async function verifyCommand(redis: Parameters<typeof readAuditChain>[0], prefix: string, rootId: string, json: boolean, io: CliIo): Promise<number> {
  const trail = await readAuditChain(redis, prefix, rootId);
  if (!trail) {
    io.stderr(`no audit trail for ${rootId} (unknown, or past its retention)\n`);
    return EXIT.invalid;
  }
  const report = verifyAuditChain(trail.links, trail.counts);
  if (json) {
    io.stdout(`${JSON.stringify({ root_id: rootId, ...report }, null, 2)}\n`);
    return report.intact ? EXIT.ok : EXIT.invalid;
  }
  const unchecked = report.before_chain > 0 ? ` (${report.before_chain} written before trails were chained, not checked)` : '';
  if (report.intact) {
    io.stdout(`audit trail of ${rootId}: ${report.entries} entries, chain intact${unchecked}\n`);
    return EXIT.ok;
  }
  io.stdout(`audit trail of ${rootId}: ${report.entries} entries, NOT intact${unchecked}:\n`);
  for (const problem of report.problems) {
    if (problem.kind === 'edited') io.stdout(`  ${problem.stream_id}: does not follow from the entry before it: edited, or the entry before it was removed\n`);
    else if (problem.kind === 'unchained') io.stdout(`  ${problem.stream_id}: has no chain hash: added by hand\n`);
    else io.stdout(`  ${problem.count > 0 ? `${problem.count} entr${problem.count === 1 ? 'y' : 'ies'} removed` : 'entries removed'} (the last removed: ${problem.last_removed})\n`);
  }
  return EXIT.invalid;
}
