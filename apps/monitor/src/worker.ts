import type { Budget } from '@tierflow/protocol';
import { TierWorker, type RuntimeOptions, type TierLogger } from '@tierflow/runtime';
import { monitorHandler } from './handler.js';
import type { MonitorOptionsInput } from './options.js';

/** How to run a Monitor worker: the runtime's options, and the policy's. */
export interface MonitorWorkerOptions extends MonitorOptionsInput {
  readonly runtime: RuntimeOptions;
  /** Jobs this process runs at once in each cell it serves (the runtime's default when left out). */
  readonly concurrency?: number;
  /** The cells this process serves (`--cells`); every cell when left out. */
  readonly cells?: readonly number[];
  readonly log?: TierLogger;
  /** The budget of runs whose objective sets none (docs/operations.md#usage-prices-and-budgets); each limit an objective sets takes its default's place. */
  readonly budget?: Budget;
}

/** Starts a Monitor worker on the `monitor` queue, where root objectives arrive; resolves once it takes jobs. */
export async function startMonitorWorker(options: MonitorWorkerOptions): Promise<TierWorker> {
  const { runtime, concurrency, cells, log, budget, ...policy } = options;
  return TierWorker.start({
    handler: monitorHandler(policy),
    runtime,
    ...(budget === undefined ? {} : { budget }),
    ...(concurrency === undefined ? {} : { concurrency }),
    ...(cells === undefined ? {} : { cells }),
    ...(log === undefined ? {} : { log }),
  });
}
