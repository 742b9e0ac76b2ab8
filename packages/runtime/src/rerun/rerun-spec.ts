import { z } from 'zod';

/**
 * How a run reruns another (docs/operations.md#rerun-fork-and-replay), as its client writes it
 * beside the new root before submitting it, at `<prefix>:rerun:<new root id>` (JSON):
 * - `of`: the run it reruns;
 * - `from`: a node of that run to fork from, or null for a whole rerun. In a fork, the nodes under
 *   `from` (and `from` itself) run again, its ancestors run again on the mix, and every other node
 *   answers with its recorded outcome (`<prefix>:reuse:<new root>`), without running;
 * - `replay`: model calls answered from the recording (`<prefix>:replay:<new root>`): `off`,
 *   `loose` (a request that matches nothing goes to the model) or `strict` (it fails,
 *   `replay_miss`). Outside a fork's subtree calls are always replayed loosely, so its ancestors'
 *   planners plan as they did;
 * - `edits`: `path=json` edits made to `from`'s delegation when it is taken up (a whole rerun's
 *   edits are made to the objective before it is submitted).
 */
export const REPLAY_MODES = ['off', 'loose', 'strict'] as const;
export type ReplayMode = (typeof REPLAY_MODES)[number];

export const rerunSpecSchema = z.strictObject({
  of: z.string().min(1),
  from: z.string().min(1).nullable().default(null),
  replay: z.enum(REPLAY_MODES).default('off'),
  edits: z.array(z.string()).default([]),
});
export type RerunSpec = z.output<typeof rerunSpecSchema>;
export type RerunSpecInput = z.input<typeof rerunSpecSchema>;

/** A node's place in its run: its id without the root id (`.0-0.1-2`; empty for the root), the same in a rerun. */
export function nodePath(nodeId: string, rootId: string): string | null {
  return nodeId === rootId ? '' : nodeId.startsWith(`${rootId}.`) ? nodeId.slice(rootId.length) : null;
}

/** How a node of a rerun runs (pure): as before (`run`), again with its calls replayed loosely (`ancestor`), or answered with its recorded outcome (`reuse`). */
export type RerunRole = 'run' | 'ancestor' | 'reuse';

export function rerunRole(spec: RerunSpec, path: string): RerunRole {
  if (spec.from === null) return 'run';
  const fork = nodePath(spec.from, spec.of);
  if (fork === null) return 'run';
  if (path === fork || path.startsWith(`${fork}.`)) return 'run';
  if (fork.startsWith(`${path}.`) || path === '') return 'ancestor';
  return 'reuse';
}

/** The replay a node's calls get (pure): strictness applies under the fork's node; outside it calls are replayed loosely. */
export function replayOf(spec: RerunSpec, role: RerunRole): ReplayMode {
  return role === 'run' ? spec.replay : 'loose';
}
