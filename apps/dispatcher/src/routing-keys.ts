/**
 * The Dispatcher's Beads keys for one run. Seed 000 names global keys (`routing/task-graph`,
 * `routing/assignments`); here they sit under the root id, so concurrent runs never overwrite each
 * other's state: `routing/<rootId>/task-graph`, `routing/<rootId>/assignments`.
 */
export function routingKeys(rootId: string): { readonly taskGraph: string; readonly assignments: string } {
  return {
    taskGraph: `routing/${rootId}/task-graph`,
    assignments: `routing/${rootId}/assignments`,
  };
}

