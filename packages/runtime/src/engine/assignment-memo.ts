import type { TierName } from '@tierflow/protocol';
import { readAssignment } from '../messages/assignment.js';
import type { Assignment } from '../policy/handler.js';
import type { InputLimits } from '../messages/input-limits.js';

/** The part of a BullMQ job the memo reads. */
export interface MemoJob {
  readonly id?: string | undefined;
  /** When the job was added: a job re-added under the same id is a different job. */
  readonly timestamp: number;
  readonly data: unknown;
}

/**
 * The assignments of the jobs this worker has read, so that a parent resuming here is not
 * validated again: its data was checked on its first pass, and nothing in Tierflow rewrites a
 * job's data (a signing deployment still checks every pass's signature). Bounded, so ten
 * thousand parked parents cost no more memory than two thousand: past `limit` entries the
 * oldest goes, and a job read again is simply validated again.
 */
export class AssignmentMemo {
  private readonly entries = new Map<string, { readonly timestamp: number; readonly assignment: Assignment }>();

  constructor(
    private readonly tier: TierName,
    private readonly limit = 2_000,
    /** What a job may carry (see {@link readAssignment}); unchecked when left out. */
    private readonly inputLimits?: InputLimits,
  ) {}

  /** The job's assignment; @throws InvalidJobError as {@link readAssignment} does. */
  read(job: MemoJob): Assignment {
    const id = job.id;
    const known = id === undefined ? undefined : this.entries.get(id);
    if (known && known.timestamp === job.timestamp) return known.assignment;
    const assignment = readAssignment(this.tier, job.data, this.inputLimits);
    if (id !== undefined) {
      this.entries.delete(id);
      if (this.entries.size >= this.limit) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(id, { timestamp: job.timestamp, assignment });
    }
    return assignment;
  }

  /** Drops a finished job's entry. */
  forget(jobId: string): void {
    this.entries.delete(jobId);
  }

  get size(): number {
    return this.entries.size;
  }
}
