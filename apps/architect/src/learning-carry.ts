import { AGGREGATION_SUMMARY, learningMetadata, learningRecordsOf, type LearningRecord } from '@tierflow/core';
import type { ArtifactInput, OutcomePayload } from '@tierflow/protocol';
import type { OutcomeFields } from '@tierflow/runtime/policy';

/** What the Architect keeps of earlier rounds for the tree's learning: every leaf attempt's record, and what surprised. */
export interface CarriedLearning {
  readonly learning: readonly LearningRecord[];
  /** Records left out so far (over the cap, or unreadable). */
  readonly learning_dropped: number;
  /** Why earlier rounds' outcomes surprised, one line each. */
  readonly surprises: readonly string[];
}

/**
 * What the Architect carries past a round it revises (pure): the records and surprises kept so
 * far, then this round's, from the Dispatcher's aggregation summary and surprise flag; at most
 * the summary's cap of records, the rest counted.
 */
export function carryRound(
  kept: CarriedLearning,
  outcome: Pick<OutcomePayload, 'artifacts' | 'surprise_flag' | 'surprise_reason'>,
): { learning: LearningRecord[]; learning_dropped: number; surprises: string[] } {
  const round = learningRecordsOf(outcome);
  const { learning, learning_dropped } = learningMetadata([...kept.learning, ...round.records], kept.learning_dropped + round.dropped);
  return { learning, learning_dropped, surprises: outcome.surprise_flag ? [...kept.surprises, outcome.surprise_reason ?? 'surprise'] : [...kept.surprises] };
}

/**
 * The Architect's outcome with what it carried from earlier rounds (pure), so the Monitor sees
 * every record of the tree: those records go before the ones its aggregation summary holds, and
 * an earlier round's surprise flags the outcome too. Unchanged when nothing was carried, or when
 * it has no summary to carry them in.
 */
export function withCarried(fields: OutcomeFields, carried: CarriedLearning): OutcomeFields {
  if (carried.learning.length === 0 && carried.learning_dropped === 0 && carried.surprises.length === 0) return fields;
  const artifacts = fields.artifacts ?? [];
  const at = artifacts.findIndex((artifact) => artifact.artifact_type === AGGREGATION_SUMMARY);
  const summary = artifacts[at];
  const withRecords = summary ? artifacts.map((artifact, i) => (i === at ? carriedInto(artifact, carried) : artifact)) : artifacts;
  const reasons = [...carried.surprises, ...(fields.surprise_flag ? [fields.surprise_reason ?? 'surprise'] : [])];
  return {
    ...fields,
    artifacts: withRecords,
    surprise_flag: reasons.length > 0,
    surprise_reason: reasons.length > 0 ? reasons.join('; ') : null,
  };
}

function carriedInto(summary: ArtifactInput, carried: CarriedLearning): ArtifactInput {
  const metadata = summary.metadata ?? {};
  const own = learningRecordsOf({ artifacts: [{ ...summary, content_ref: summary.content_ref ?? null, inline_content: summary.inline_content ?? null, metadata }] });
  // own.dropped holds the summary's own learning_dropped already.
  return { ...summary, metadata: { ...metadata, ...learningMetadata([...carried.learning, ...own.records], carried.learning_dropped + own.dropped) } };
}
