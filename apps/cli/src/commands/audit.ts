import { cellOf, connectReachable, readAuditTrail, runtimeOptionsFromEnv } from '@tierflow/runtime';
import { EXIT, type CliIo } from '../io.js';
import { renderAudit } from '../render-audit.js';

/** `tierflow audit <root-id> [--json]`: every message the run's tiers sent and received, in order. */
export async function auditCommand(rootId: string, options: { json?: boolean }, io: CliIo): Promise<number> {
  const runtime = runtimeOptionsFromEnv();
  const redis = await connectReachable(runtime);
  try {
    const records = await readAuditTrail(redis, cellOf(runtime, rootId).prefix, rootId);
    if (records.length === 0) {
      io.stderr(`no audit trail for ${rootId} (unknown, or past its retention)\n`);
      return EXIT.invalid;
    }
    io.stdout(options.json ? `${JSON.stringify(records, null, 2)}\n` : renderAudit(records));
    return EXIT.ok;
  } finally {
    redis.disconnect();
  }
}
