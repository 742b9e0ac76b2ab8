/**
 * The Dispatcher's Beads keys for one run (docs/protocol.md#beads-keys). They sit under the root
 * id, so concurrent runs never overwrite each other's state: `routing/<rootId>/task-graph`,
 * `routing/<rootId>/assignments`.
 */
export function routingKeys(rootId: string): { readonly taskGraph: string; readonly assignments: string } {
  return {
    taskGraph: `routing/${rootId}/task-graph`,
    assignments: `routing/${rootId}/assignments`,
  };
}
