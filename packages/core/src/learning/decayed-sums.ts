import { z } from 'zod';

/**
 * A value whose numeric fields all decay with one half-life: `sums` as they stood at `updated_at`
 * (ms since the epoch). Counts, totals and histogram buckets kept this way follow a specialist
 * that changes, since old observations weigh less and less.
 */
export const decayedSumsSchema = z.object({
  updated_at: z.number(),
  half_life_ms: z.number().positive(),
  sums: z.record(z.string(), z.number()),
});
export type DecayedSums = z.infer<typeof decayedSumsSchema>;

/** At most this many fields: new ones beyond it are not added (the Beads Lua script mirrors this). */
export const DECAYED_SUMS_FIELD_CAP = 256;

/** 2^(−elapsed/halfLife); 1 when no time has passed (or the clock went back). */
export function decayFactor(elapsedMs: number, halfLifeMs: number): number {
  if (!(elapsedMs > 0)) return 1;
  return 2 ** (-elapsedMs / halfLifeMs);
}

/**
 * Every field decayed to `now` with the value's own half-life. Never forwards in time: when `now`
 * is before `updated_at` (another process's clock ran ahead), nothing decays and `updated_at` stays.
 */
export function decaySums(value: DecayedSums, now: number): DecayedSums {
  const factor = decayFactor(now - value.updated_at, value.half_life_ms);
  const sums: Record<string, number> = {};
  for (const [field, sum] of Object.entries(value.sums)) sums[field] = sum * factor;
  return { updated_at: Math.max(value.updated_at, now), half_life_ms: value.half_life_ms, sums };
}

/**
 * The stored value (or nothing) decayed to `now` with its own half-life, then the increments
 * added; the result carries `halfLifeMs` from then on. Increments are added in sorted field order,
 * so which new fields the cap leaves out does not depend on key order; a field not yet present is
 * added only while fewer than {@link DECAYED_SUMS_FIELD_CAP} fields exist. Non-finite increments
 * are skipped (JSON cannot carry them, and one would poison the sum for good).
 */
export function addToSums(value: DecayedSums | null, increments: Readonly<Record<string, number>>, now: number, halfLifeMs: number): DecayedSums {
  const base = value === null ? { updated_at: now, half_life_ms: halfLifeMs, sums: {} } : decaySums(value, now);
  const sums: Record<string, number> = { ...base.sums };
  let fields = Object.keys(sums).length;
  for (const field of Object.keys(increments).sort()) {
    const increment = increments[field];
    if (increment === undefined || !Number.isFinite(increment)) continue;
    const current = sums[field];
    if (current !== undefined) sums[field] = current + increment;
    else if (fields < DECAYED_SUMS_FIELD_CAP) {
      sums[field] = increment;
      fields += 1;
    }
  }
  return { updated_at: base.updated_at, half_life_ms: halfLifeMs, sums };
}
