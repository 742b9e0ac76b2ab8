import type { TierName } from '@tierflow/protocol';
import { inCell, servedCells } from '../cells/cells.js';
import { RoomWaits } from '../model-limits/room-waits.js';
import { AloneGate } from './alone-gate.js';
import { CellWorker } from './cell-worker.js';
import type { CellWorkerOptions } from './compose-cell.js';

export interface TierWorkerOptions extends CellWorkerOptions {
  /**
   * The cells this process serves (`--cells 0,2`): every cell of the deployment when left out
   * (docs/operations.md#cells). `concurrency` holds per cell.
   */
  readonly cells?: readonly number[];
}

/**
 * One tier's worker: on each cell it serves, a BullMQ worker on that cell's queue of the tier that
 * runs the tier's policy (see CellWorker). With one cell, the deployment's only queue of the tier.
 *
 * ```ts
 * const worker = await TierWorker.start({ handler: fleetPolicy, runtime: runtimeOptionsFromEnv() });
 * process.on('SIGTERM', () => void worker.close());
 * ```
 */
export class TierWorker {
  readonly tier: TierName;

  private constructor(
    private readonly cells: readonly CellWorker[],
    /** The cell each of `cells` serves. */
    private readonly served: readonly number[],
  ) {
    this.tier = cells[0]!.tier;
  }

  /**
   * Starts a worker on every cell it serves and resolves once each takes jobs. If one cannot
   * start, those started are closed and the error is thrown, so the process can exit.
   *
   * @throws TierflowError (code `invalid_argument`) for a cell the deployment does not have.
   */
  static async start(options: TierWorkerOptions): Promise<TierWorker> {
    const { cells, ...cellOptions } = options;
    const served = cells === undefined ? servedCells(undefined, options.runtime.cells) : servedCells(cells.join(','), options.runtime.cells);
    const started: CellWorker[] = [];
    // One gate over every cell: a job that runs alone has no job of any cell beside it.
    const gate = cellOptions.gate ?? new AloneGate();
    // One set of waiters for room: model limits hold across cells, and a notice heard on any cell wakes its waiter.
    const roomWaits = cellOptions.roomWaits ?? new RoomWaits();
    try {
      for (const index of served) started.push(await CellWorker.start({ ...cellOptions, gate, roomWaits, runtime: inCell(options.runtime, index), deploymentPrefix: options.runtime.prefix }));
    } catch (error) {
      await Promise.all(started.map((worker) => worker.close()));
      throw error;
    }
    return new TierWorker(started, served);
  }

  /**
   * Tells the worker which traces a collector took spans of (telemetry's `onExported`): a root's
   * worker marks those of its runs exported, so `tierflow trace` links only to traces that exist.
   * Never throws; other tiers do nothing.
   */
  async tracesExported(traceIds: ReadonlySet<string>): Promise<void> {
    await Promise.all(this.cells.map((worker) => worker.tracesExported(traceIds)));
  }

  /** Stops taking jobs on every cell, lets the running ones finish, and disconnects. */
  async close(): Promise<void> {
    await Promise.all(this.cells.map((worker) => worker.close()));
  }

  /** What a close under way still waits for, by cell: for an operator whose worker is slow to stop. */
  stillClosing(): string[] {
    return this.cells.flatMap((worker, index) => worker.stillClosing().map((step) => (this.cells.length > 1 ? `cell ${this.served[index]}: ${step}` : step)));
  }
}
