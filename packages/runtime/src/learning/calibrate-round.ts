import type { Beads } from '@tierflow/beads';
import { calibrateConfidence, specialistStats, type CalibrationOptions, type SpecialistStats } from '@tierflow/core';
import type { SettledChild, SettledRound } from '../policy/handler.js';
import { specialistHistoryKey } from './history-keys.js';
import { readDecayedValues, type HistoryReadOptions } from './history-values.js';

/** Which history a Fleet leaf's confidence is calibrated against. */
export interface LeafIdentity {
  readonly taskType: string;
  readonly specialist: string;
}

/** A child whose confidence was calibrated: what its specialist reported, and what it counts as. */
export interface CalibratedLeaf {
  readonly id: string;
  readonly reported: number;
  readonly confidence: number;
  readonly samples: number;
}

/**
 * The task type and specialist of a Fleet leaf that reported success or partial work: the
 * specialist from its outcome's `resources_used.specialist`, else the agent or specialist its
 * delegation named; the task type from its delegation's `task_data.task_type`, else the
 * delegation's own `task_type` (the subtask's). Null when the specialist is unknown, or for any
 * other status (a failure's confidence is not relied on). Pure.
 */
export function leafIdentity(child: SettledChild): LeafIdentity | null {
  const { payload } = child.outcome;
  if (payload.status !== 'success' && payload.status !== 'partial') return null;
  const { task_data: data, task_type: delegated } = child.request;
  const taskType = typeof data.task_type === 'string' && data.task_type !== '' ? data.task_type : delegated;
  const used = payload.resources_used.specialist;
  const specialist = typeof used === 'string' && used !== '' ? used : (child.request.target_agent?.agent_id ?? child.request.specialist_hint);
  return specialist ? { taskType, specialist } : null;
}

/**
 * The round with each leaf's confidence calibrated against its specialist's history
 * (`calibrateConfidence`), its reported value kept as `reported_confidence`. A child calibrated
 * before (its round read again) is calibrated from what it reported, not from the calibrated
 * value. Pure.
 */
export function calibratedRound(
  round: SettledRound,
  statsOf: (leaf: LeafIdentity) => SpecialistStats | null,
  options?: CalibrationOptions,
): { readonly round: SettledRound; readonly calibrated: readonly CalibratedLeaf[] } {
  const calibrated: CalibratedLeaf[] = [];
  const children = round.children.map((child) => {
    const leaf = leafIdentity(child);
    const stats = leaf ? statsOf(leaf) : null;
    if (!stats) return child;
    const { payload } = child.outcome;
    const reported = payload.reported_confidence ?? payload.confidence;
    const result = calibrateConfidence(reported, stats, options);
    if (!result.calibrated) return child;
    calibrated.push({ id: child.id, reported, confidence: result.confidence, samples: result.samples });
    return { ...child, outcome: { ...child.outcome, payload: { ...payload, confidence: result.confidence, reported_confidence: reported } } };
  });
  return { round: calibrated.length === 0 ? round : { ...round, children }, calibrated };
}

/**
 * {@link calibratedRound} with the history read from Beads: one read (one MGET) of the leaves'
 * specialists' history, none when no child is a leaf to calibrate. Unreadable history is none.
 */
export async function calibrateRound(
  beads: Pick<Beads, 'getMany'>,
  round: SettledRound,
  now: number,
  options: HistoryReadOptions & { readonly calibration?: CalibrationOptions } = {},
): Promise<{ readonly round: SettledRound; readonly calibrated: readonly CalibratedLeaf[] }> {
  const keys = [
    ...new Set(
      round.children.flatMap((child) => {
        const leaf = leafIdentity(child);
        return leaf ? [specialistHistoryKey(leaf.taskType, leaf.specialist)] : [];
      }),
    ),
  ];
  if (keys.length === 0) return { round, calibrated: [] };
  const values = await readDecayedValues(beads, keys, options);
  const stats = new Map(keys.map((key, i) => [key, values[i] ? specialistStats(values[i], now) : null]));
  return calibratedRound(round, (leaf) => stats.get(specialistHistoryKey(leaf.taskType, leaf.specialist)) ?? null, options.calibration);
}
