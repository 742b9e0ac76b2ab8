import { addUsage, readUsage, ZERO_USAGE } from '@tierflow/core';
import type { Usage } from '@tierflow/protocol';
import type { UsageMeter } from '../policy/usage-meter.js';

/** A run's meter as one pass hands it to its policy, and what that pass's own calls settled through it. */
export interface HopUsage {
  readonly meter: UsageMeter;
  /** What the calls made through `meter` were charged so far, settled ones only. */
  readonly spent: () => Usage;
}

/**
 * Wraps a run's meter so the pass that hands it out knows what its own calls cost, whatever the
 * policy reports: a job stopped after its model answered (a first_success loser in its checker,
 * a deadline mid-way) answers with no result of its own, yet its calls were billed.
 */
export function hopUsage(meter: UsageMeter): HopUsage {
  let spent = ZERO_USAGE;
  const add = (usage: Usage) => (spent = addUsage(spent, readUsage(usage)));
  return {
    meter: {
      reserve: async (estimate) => {
        const reservation = await meter.reserve(estimate);
        let settled = false;
        return {
          settle: async (usage, estimated) => {
            // Settling twice charges once, in the run's hash and here.
            if (!settled) add(usage);
            settled = true;
            await reservation.settle(usage, estimated);
          },
        };
      },
      record: async (usage) => {
        add(usage);
        await meter.record(usage);
      },
      ...(meter.standing ? { standing: meter.standing.bind(meter) } : {}),
      ...(meter.toolCall ? { toolCall: meter.toolCall.bind(meter) } : {}),
    },
    spent: () => spent,
  };
}
