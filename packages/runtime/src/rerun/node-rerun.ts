import { nodePath, replayOf, rerunRole, type ReplayMode, type RerunRole, type RerunSpec } from './rerun-spec.js';

/** How one node of a rerun runs: its place in the run, its role, and how its model calls replay. */
export interface NodeRerun {
  readonly spec: RerunSpec;
  /** Its id without the root id: the same node in the original run is `spec.of` + path. */
  readonly path: string;
  readonly role: RerunRole;
  readonly replay: ReplayMode;
  /** The node of the original run it stands for. */
  readonly original: string;
  /** Whether it is the fork's node, whose delegation takes `spec.edits`. */
  readonly forkNode: boolean;
}

/** A node's part in a rerun (pure); null when its id is not of `rootId`'s run. */
export function nodeRerun(spec: RerunSpec, nodeId: string, rootId: string): NodeRerun | null {
  const path = nodePath(nodeId, rootId);
  if (path === null) return null;
  const role = rerunRole(spec, path);
  const fork = spec.from === null ? null : nodePath(spec.from, spec.of);
  return { spec, path, role, replay: replayOf(spec, role), original: `${spec.of}${path}`, forkNode: fork !== null && fork === path };
}
