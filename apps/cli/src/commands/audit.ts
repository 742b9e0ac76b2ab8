import { cellOf, connectReachable, readAuditTrail, type AuditKind } from '@tierflow/runtime/admin';
import { runtimeOptionsFromEnv } from '@tierflow/runtime';
import { shownAudit } from '../audit-filter.js';
import { EXIT, type CliIo } from '../io.js';
import { renderAudit } from '../render-audit.js';

export interface AuditOptions {
  readonly json?: boolean;
  readonly kind?: readonly AuditKind[];
  readonly progress?: boolean;
}

/**
 * `tierflow audit <root-id> [--kind k]... [--progress] [--json]`: the messages the run's tiers sent
 * and received, in order. Progress notes are left out of the table unless --progress (or
 * `--kind progress`) asks for them; --json keeps them, as scripts read it, unless --kind narrows it.
 */
export async function auditCommand(rootId: string, options: AuditOptions, io: CliIo): Promise<number> {
  const runtime = runtimeOptionsFromEnv();
  const redis = await connectReachable(runtime);
  try {
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
