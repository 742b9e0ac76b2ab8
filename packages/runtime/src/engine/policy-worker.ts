import type { Budget } from '@tierflow/protocol';
import type { RuntimeOptions } from '../config/options.js';
import { resolveNotifyOptions, type NotifyOptionsInput } from '../notify/delivery-policy.js';
import type { TierHandler, TierLogger } from '../policy/handler.js';
import { TierWorker, type TierWorkerOptions } from './tier-worker.js';

/** The host's part of a tier app's worker options: where it runs and how much at once, apart from its policy's options. */
export interface PolicyWorkerOptions {
  readonly runtime: RuntimeOptions;
  /** Jobs this process runs at once in each cell it serves (the runtime's default when left out). */
  readonly concurrency?: number;
  /** The cells this process serves (`--cells`); every cell when left out. */
  readonly cells?: readonly number[];
  readonly log?: TierLogger;
  /** Where the process's own metrics are scraped, for its heartbeat (`tierflow workers`); none when left out. */
  readonly metricsUrl?: string | null;
  /**
   * The deployment's webhooks (docs/operations.md#webhooks): every tier's worker queues the events
   * it sees (a security finding in what it sends); the root's tells of runs, and delivers.
   */
  readonly notify?: NotifyOptionsInput;
}

/** The root tier's host options: a run's budget belongs to the root, so only the Monitor's worker is given one. */
export interface RootWorkerOptions extends PolicyWorkerOptions {
  /** The budget of runs whose objective sets none (docs/operations.md#usage-prices-and-budgets); each limit an objective sets takes its default's place. */
  readonly budget?: Budget;
}

/**
 * A TierWorker's options from a tier app's: the host's part goes to the worker, the rest to the
 * policy's factory, which refuses keys it does not know. Host options left out stay out, so the
 * runtime's defaults apply. Pure.
 */
export function policyWorkerOptions<Policy extends object>(makeHandler: (policy: Policy) => TierHandler, options: RootWorkerOptions & Policy): TierWorkerOptions {
  const { runtime, concurrency, cells, log, budget, metricsUrl, notify, ...policy } = options;
  return {
    // What is left once the host's keys are taken is the policy's own.
    handler: makeHandler(policy as unknown as Policy),
    runtime,
    ...(budget === undefined ? {} : { budget }),
    ...(concurrency === undefined ? {} : { concurrency }),
    ...(cells === undefined ? {} : { cells }),
    ...(log === undefined ? {} : { log }),
    ...(metricsUrl === undefined ? {} : { metricsUrl }),
    ...(notify === undefined ? {} : { notify: resolveNotifyOptions(notify) }),
  };
}

/**
 * Starts a tier app's worker: its policy, made by `makeHandler` from the options that are not the
 * host's, on every cell it serves. Resolves once it takes jobs.
 *
 * ```ts
 * export const startArchitectWorker = (options: ArchitectWorkerOptions) => startPolicyWorker(architectHandler, options);
 * ```
 *
 * @throws TierflowError (permanent, code `invalid_config`) for policy options its factory refuses, before anything starts.
 */
export async function startPolicyWorker<Policy extends object>(makeHandler: (policy: Policy) => TierHandler, options: RootWorkerOptions & Policy): Promise<TierWorker> {
  // Async, so bad policy options reject the promise, as a worker that cannot start does.
  return TierWorker.start(policyWorkerOptions(makeHandler, options));
}
