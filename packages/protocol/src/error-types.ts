/**
 * `error_type` codes that one tier sets and another acts on, so both read them from here:
 * a Fleet answers with them, and the Dispatcher routes the subtask to another specialist.
 */
export const ROUTABLE_ERROR_TYPES = {
  /** The specialist asked for cannot run (not loaded, out of capacity for good). */
  specialistUnavailable: 'specialist_unavailable',
  /** The agent named is not in the Fleet's registry: another may serve it. */
  unknownAgent: 'unknown_agent',
} as const;
