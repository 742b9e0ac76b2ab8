import { z } from 'zod';

/** How a Dispatcher chooses among a task type's candidates: the table, measured results, or the table while recording what measured results would do. */
export const ROUTING_MODES = ['fixed', 'learned', 'shadow'] as const;
export const routingModeSchema = z.enum(ROUTING_MODES);
export type RoutingMode = z.infer<typeof routingModeSchema>;

/**
 * Why a candidate was chosen: a plan's `hint`, the `only_candidate`, the `fixed` table, an
 * `untried` candidate (tried first), a Thompson draw (`sampled`), the `best_mean` posterior, a
 * `revision` ranking the candidates by history, or a `reroute` among those left after the chosen
 * specialist turned out unavailable or throttled.
 */
export const ROUTING_REASONS = ['hint', 'only_candidate', 'fixed', 'untried', 'sampled', 'best_mean', 'revision', 'reroute'] as const;
export const routingReasonSchema = z.enum(ROUTING_REASONS);
export type RoutingReason = z.infer<typeof routingReasonSchema>;
