import { TIER_SLUGS } from '@tierflow/protocol';
import { finished, nodeEvents, progressText } from '@tierflow/runtime/admin';
import { runtimeOptionsFromEnv, TierflowClient, type NodeEvent } from '@tierflow/runtime';
import { setTimeout as sleep } from 'node:timers/promises';
import { EXIT, type CliIo } from '../io.js';
import { LIVE_INTERVAL_MS, liveTree } from '../live-tree.js';
import { queueText } from '../render-tree.js';
import { UnservedNotes } from '../unserved-notes.js';

export interface WatchOptions {
  readonly json?: boolean;
  /** Show each node's BullMQ state beside its status. */
  readonly debug?: boolean;
  /** How often the tree is read again (default 500 ms). */
  readonly intervalMs?: number;
  /** Where the live view is drawn; a terminal gets it redrawn in place, anything else plain lines. */
  readonly terminal?: NodeJS.WriteStream | null;
}

/**
 * `tierflow watch <root-id> [--json]`: the run as it goes, until it ends, then its outcome. On a
 * terminal the tree is redrawn in place; otherwise one line per node that changed; with `--json`
 * one JSON event a line. Exit 0 when the run succeeds, 1 otherwise.
 */
export async function watchCommand(rootId: string, options: WatchOptions, io: CliIo): Promise<number> {
  const client = await TierflowClient.connect(runtimeOptionsFromEnv());
  const terminal = options.json ? null : (options.terminal ?? null);
  const live = terminal ? liveTree(terminal, 'watching', Date.now, { debug: options.debug ?? false }) : null;
  const seen = new Map<string, string>();
  const notes = new UnservedNotes(client);
  try {
    for (;;) {
      const tree = await client.tree(rootId);
      if (!tree) {
        io.stderr(`no run ${rootId} (unknown, or past retention)\n`);
        return EXIT.invalid;
      }
      const done = finished(tree);
      const { current, fresh } = done ? { current: [], fresh: [] } : await notes.update(tree);
      if (live) live.draw(tree, current);
      else for (const event of nodeEvents(tree, seen)) io.stdout(options.json ? `${JSON.stringify(event)}\n` : `${plainLine(event, options.debug ?? false)}\n`);
      // Plain lines say it in the view; beside JSON events, on standard error.
      if (!live) for (const note of fresh) (options.json ? io.stderr : io.stdout)(`${note}\n`);
      if (done) {
        live?.done();
        const outcome = await client.result(rootId);
        const status = outcome?.payload.status ?? tree.status;
        if (options.json) {
          io.stdout(`${JSON.stringify({ type: 'outcome', root_id: rootId, status, summary: outcome?.payload.summary ?? '', confidence: outcome?.payload.confidence ?? 0 })}\n`);
        } else {
          io.stdout(`${status}: ${outcome?.payload.summary ?? '(no outcome retained)'}\n`);
        }
        return status === 'success' ? EXIT.ok : EXIT.invalid;
      }
      await sleep(options.intervalMs ?? LIVE_INTERVAL_MS);
    }
  } finally {
    await client.close();
  }
}

function plainLine(event: NodeEvent, debug: boolean): string {
  const parts = [
    new Date().toISOString(),
    TIER_SLUGS[event.tier].padEnd(10),
    event.id,
    event.specialist ?? '',
    event.status,
    debug ? queueText(event.queue_state) : '',
    event.progress ? progressText(event.progress) : '',
  ];
  const asks = (event.questions ?? []).filter((question) => question.answer === null).map((question) => `\n  asks (${question.id}): ${question.question}`);
  return parts.filter((part) => part !== '').join('  ') + asks.join('');
}
