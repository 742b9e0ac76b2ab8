import { TierWorker, type RuntimeOptions, type TierLogger } from '@tierflow/runtime';
import { architectHandler } from './handler.js';
import type { ArchitectOptionsInput } from './options.js';

/** How to run an Architect worker: the runtime's options, and the policy's. */
export interface ArchitectWorkerOptions extends ArchitectOptionsInput {
  readonly runtime: RuntimeOptions;
  /** Jobs this process runs at once in each cell it serves (the runtime's default when left out). */
  readonly concurrency?: number;
  /** The cells this process serves (`--cells`); every cell when left out. */
  readonly cells?: readonly number[];
  readonly log?: TierLogger;
}

/** Starts an Architect worker on the `architect` queue; resolves once it takes jobs. */
export async function startArchitectWorker(options: ArchitectWorkerOptions): Promise<TierWorker> {
  const { runtime, concurrency, cells, log, ...policy } = options;
  return TierWorker.start({
    handler: architectHandler(policy),
    runtime,
    ...(concurrency === undefined ? {} : { concurrency }),
    ...(cells === undefined ? {} : { cells }),
    ...(log === undefined ? {} : { log }),
  });
}
