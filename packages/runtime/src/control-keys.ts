/** Keys and channels of the control path: cancellation marks, timeout records, races. */
export const controlKeys = (prefix: string) => ({
  /** Durable mark that a message is cancelled: a job picked up later, or retried, sees it. */
  cancel: (messageId: string) => `${prefix}:cancel:${messageId}`,
  /** Record that a child had no outcome by its deadline (written by the sender's watchdog). */
  timeout: (messageId: string) => `${prefix}:timeout:${messageId}`,
  /** A first_success round's siblings; its first winner cancels the rest. */
  race: (roundKey: string) => `${prefix}:race:${roundKey}`,
  raceWinner: (roundKey: string) => `${prefix}:race-won:${roundKey}`,
  /** Due watchdogs: a sorted set of parent rounds by when their children's deadlines fall. */
  watchdogs: `${prefix}:watchdogs`,
  /** A root's trace id, for `tierflow trace`. */
  trace: (rootId: string) => `${prefix}:trace:${rootId}`,
  /** Pub/sub channel every worker process listens on, to abort running handlers. */
  channel: `${prefix}:control`,
});
export type ControlKeys = ReturnType<typeof controlKeys>;

/** A child's round: its id without the last `-index`, e.g. `root.0-0.1` for `root.0-0.1-2`. */
export function roundKeyOf(childId: string): string | null {
  const dash = childId.lastIndexOf('-');
  const dot = childId.lastIndexOf('.');
  return dash > dot && dot > 0 ? childId.slice(0, dash) : null;
}

/** A child's parent id: its id without the last `.round-index` segment. */
export function parentIdOf(childId: string): string | null {
  const dot = childId.lastIndexOf('.');
  return dot > 0 ? childId.slice(0, dot) : null;
}
