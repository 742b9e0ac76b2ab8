import type { BeadsEntry } from '@tierflow/beads';
import { artifactFor } from '@tierflow/core';
import type { Artifact, EvidenceGrade, OutcomePayloadInput, OutcomeStatus, OutputFormat } from '@tierflow/protocol';
import { logKey, outputKey } from './output-keys.js';
import type { CheckedSpecialistResult } from './specialist-result.js';

/** What one specialist run was, for its outcome and its execution log. */
export interface SpecialistRun {
  readonly messageId: string;
  readonly specialist: { readonly name: string; readonly version: string };
  readonly attempt: number;
  readonly result: CheckedSpecialistResult;
  /** Milliseconds since the epoch. */
  readonly startedAt: number;
  readonly finishedAt: number;
  /** Expiry of what is written to Beads; the store's default when left out. */
  readonly ttlMs?: number;
}

/** The execution log kept at `execution/logs/<message id>`. */
export interface ExecutionLog {
  readonly specialist: string;
  readonly version: string;
  readonly attempt: number;
  readonly status: OutcomeStatus;
  /** ISO 8601. */
  readonly started_at: string;
  readonly finished_at: string;
}

/**
 * The outcome drafts the Fleet sends, field by field. (The runtime's `OutcomeDraft` is an `Omit` of
 * a loose object type, which keeps only its index signature, so it checks no field; this does.)
 */
export type FleetOutcome = {
  readonly status: OutcomeStatus;
  readonly summary: string;
  readonly confidence: number;
  readonly evidence_grade?: EvidenceGrade;
  readonly format?: OutputFormat;
  readonly sources_count?: number;
  readonly data_freshness?: string;
  readonly gaps?: string[];
  readonly assumptions?: string[];
  readonly result_refs: string[];
  readonly artifacts: Artifact[];
  readonly resources_used: Record<string, unknown>;
  readonly error_type?: string;
  readonly error_detail?: string;
  readonly recoverable?: boolean;
};

// Fails to compile if FleetOutcome drifts from the wire schema's field types.
type Holds<T extends true> = T;
type _FleetOutcomeFitsTheWire = Holds<FleetOutcome extends Partial<OutcomePayloadInput> ? true : false>;

/** A run's outcome draft, and the Beads writes to make (in one batch) before sending it. */
export interface FleetReport {
  readonly outcome: FleetOutcome;
  readonly writes: readonly BeadsEntry[];
}

/**
 * Turns a specialist's result into the Fleet's outcome: artifacts placed inline or by reference
 * (large content goes to `execution/outputs/…`), an execution log, and error fields only when the
 * status is not success, since the protocol refuses them there. Pure.
 */
export function fleetReport(run: SpecialistRun): FleetReport {
  const { result, messageId, specialist } = run;
  const ttl = run.ttlMs === undefined ? {} : { ttlMs: run.ttlMs };
  const artifacts: Artifact[] = [];
  const writes: BeadsEntry[] = [];
  const resultRefs: string[] = [];
  result.artifacts.forEach((output, index) => {
    const key = outputKey(messageId, index);
    const placed = artifactFor({ ...output, ref: `beads:${key}` });
    artifacts.push(placed.artifact);
    if (placed.store) {
      writes.push({ key, value: placed.store.content, ...ttl });
      resultRefs.push(placed.store.ref);
    }
  });
  const log: ExecutionLog = {
    specialist: specialist.name,
    version: specialist.version,
    attempt: run.attempt,
    status: result.status,
    started_at: new Date(run.startedAt).toISOString(),
    finished_at: new Date(run.finishedAt).toISOString(),
  };
  writes.push({ key: logKey(messageId), value: log, ...ttl });

  const outcome: FleetOutcome = {
    status: result.status,
    summary: result.summary,
    confidence: result.confidence,
    ...(result.evidence_grade === undefined ? {} : { evidence_grade: result.evidence_grade }),
    ...handoffMetadataOf(result),
    result_refs: resultRefs,
    artifacts,
    resources_used: { specialist: specialist.name, specialist_version: specialist.version, ...result.resources_used },
  };
  if (result.status === 'success') return { outcome, writes };
  return {
    outcome: {
      ...outcome,
      ...(result.error_type === undefined ? {} : { error_type: result.error_type }),
      ...(result.error_detail === undefined ? {} : { error_detail: result.error_detail }),
      ...(result.recoverable === undefined ? {} : { recoverable: result.recoverable }),
    },
    writes,
  };
}

/** The handoff metadata a specialist gave (docs/protocol.md#handoff-metadata), only the fields it set. */
function handoffMetadataOf(result: CheckedSpecialistResult): Pick<FleetOutcome, 'format' | 'sources_count' | 'data_freshness' | 'gaps' | 'assumptions'> {
  const { format, sources_count, data_freshness, gaps, assumptions } = result;
  return {
    ...(format === undefined ? {} : { format }),
    ...(sources_count === undefined ? {} : { sources_count }),
    ...(data_freshness === undefined ? {} : { data_freshness }),
    ...(gaps === undefined ? {} : { gaps: [...gaps] }),
    ...(assumptions === undefined ? {} : { assumptions: [...assumptions] }),
  };
}
