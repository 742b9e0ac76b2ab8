/**
 * A (non-empty) task type as one Beads key segment: percent-encoded, so a space or a `/` cannot
 * break the key or nest it, and `.`/`..` (refused as segments) spelt with `%2E`.
 */
export function keySegment(text: string): string {
  const encoded = encodeURIComponent(text);
  return /^\.+$/.test(encoded) ? encoded.replaceAll('.', '%2E') : encoded;
}

/** The learned bounds of a task type: `system/bounds/<task_type>`, shared by every run of that type. */
export function boundsKey(taskType: string): string {
  return `system/bounds/${keySegment(taskType)}`;
}

/**
 * The Monitor's records of one run (docs/protocol.md#beads-keys). They sit under its root id, so
 * concurrent runs never overwrite each other: `system/runs/<rootId>`, `history/runs/<rootId>`.
 */
export function runKeys(rootId: string): { readonly run: string; readonly history: string } {
  return { run: `system/runs/${rootId}`, history: `history/runs/${rootId}` };
}
