import { cellOf, cellPrefixes, connectReachable, readAuditChain, auditKey, type RedisClient } from '@tierflow/runtime/admin';
import { runtimeOptionsFromEnv } from '@tierflow/runtime';
import { escapeRedisGlob, scanKeys } from '@tierflow/beads';
import { EXIT, type CliIo } from '../io.js';

export interface AuditExportOptions {
  /** Every trail the deployment still holds, in every cell, rather than the roots named. */
  readonly all?: boolean;
}

/**
 * `tierflow audit export [root-id...] [--all]`: trails as JSON lines on stdout, one entry a line,
 * `{root_id, stream_id, hash, entry}`, `entry` as it was stored, so that an export can be checked
 * offline (each `hash` is SHA-1 of the previous line's hash, a newline and `JSON.stringify(entry)`)
 * and kept past the deployment's retention. A summary goes to stderr.
 */
export async function auditExportCommand(roots: readonly string[], options: AuditExportOptions, io: CliIo): Promise<number> {
  if ((roots.length === 0) === (options.all !== true)) {
    io.stderr('name the roots to export, or --all for every trail the deployment holds\n');
    return EXIT.unusable;
  }
  const runtime = runtimeOptionsFromEnv();
  const redis = await connectReachable(runtime);
  try {
    const targets = options.all ? await everyTrail(redis, cellPrefixes(runtime)) : roots.map((rootId) => ({ prefix: cellOf(runtime, rootId).prefix, rootId }));
    let entries = 0;
    let missing = 0;
    for (const { prefix, rootId } of targets) {
      const trail = await readAuditChain(redis, prefix, rootId);
      if (!trail) {
        missing++;
        io.stderr(`no audit trail for ${rootId} (unknown, or past its retention)\n`);
        continue;
      }
      const lines = trail.links.map((link) => JSON.stringify({ root_id: rootId, stream_id: link.stream_id, hash: link.hash, entry: storedEntry(link.entry) }));
      io.stdout(`${lines.join('\n')}\n`);
      entries += lines.length;
    }
    io.stderr(`exported ${entries} entries of ${targets.length - missing} trail${targets.length - missing === 1 ? '' : 's'}\n`);
    return missing > 0 && !options.all ? EXIT.invalid : EXIT.ok;
  } finally {
    redis.disconnect();
  }
}

/** An entry's JSON as stored, parsed; text that is not JSON (an entry added by hand) kept as text. */
function storedEntry(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Every audit stream of the deployment's cells, found by SCAN: trails outlive the jobs a run list reads. */
async function everyTrail(redis: RedisClient, prefixes: readonly string[]): Promise<{ prefix: string; rootId: string }[]> {
  const found: { prefix: string; rootId: string }[] = [];
  for (const prefix of prefixes) {
    const head = auditKey(prefix, '');
    for (const key of (await scanKeys(redis, `${escapeRedisGlob(head)}*`)).sort()) found.push({ prefix, rootId: key.slice(head.length) });
  }
  return found;
}
