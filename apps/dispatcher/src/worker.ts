import { TierWorker, type RuntimeOptions, type TierLogger } from '@tierflow/runtime';
import { dispatcherHandler } from './handler.js';
import type { DispatcherOptionsInput } from './options.js';

/** How to run a Dispatcher worker: the runtime's options, and the policy's. */
export interface DispatcherWorkerOptions extends DispatcherOptionsInput {
  readonly runtime: RuntimeOptions;
  /** Jobs this process runs at once in each cell it serves (the runtime's default when left out). */
  readonly concurrency?: number;
  /** The cells this process serves (`--cells`); every cell when left out. */
  readonly cells?: readonly number[];
  readonly log?: TierLogger;
}

/** Starts a Dispatcher worker on the `dispatcher` queue; resolves once it takes jobs. */
export async function startDispatcherWorker(options: DispatcherWorkerOptions): Promise<TierWorker> {
  const { runtime, concurrency, cells, log, ...policy } = options;
  return TierWorker.start({
    handler: dispatcherHandler(policy),
    runtime,
    ...(concurrency === undefined ? {} : { concurrency }),
    ...(cells === undefined ? {} : { cells }),
    ...(log === undefined ? {} : { log }),
  });
}
