/** The Architect's Beads keys for one run. */
export interface TaskKeys {
  readonly currentObjective: string;
  readonly constraints: string;
  readonly progressSummary: string;
}

/**
 * The Architect's Beads keys for one run (docs/protocol.md#beads-keys). They sit under the
 * root id, so concurrent runs never overwrite each other's state:
 * `task/<rootId>/current-objective`, ….
 */
export function taskKeys(rootId: string): TaskKeys {
  return {
    currentObjective: `task/${rootId}/current-objective`,
    constraints: `task/${rootId}/constraints`,
    progressSummary: `task/${rootId}/progress-summary`,
  };
}
