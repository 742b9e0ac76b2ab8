import { z } from 'zod';

/**
 * How well the work behind a payload is supported
 * (docs/protocol.md#evidence-grades), strongest first: peer-reviewed research or official
 * statistics, published research, case studies or benchmarks, expert practice, an educated guess,
 * exploration with no validation yet.
 */
export const EVIDENCE_GRADES = ['NOBEL', 'PR', 'IV', 'PP', 'HEUR', 'DISC'] as const;

export const evidenceGradeSchema = z.enum(EVIDENCE_GRADES).meta({
  description:
    'How well the work is supported, strongest first: NOBEL (peer-reviewed research, official statistics), PR (published research, industry reports), ' +
    'IV (case studies, benchmark data), PP (expert opinion, best practice), HEUR (pattern recognition, an educated guess), DISC (exploratory, not validated).',
});
export type EvidenceGrade = z.infer<typeof evidenceGradeSchema>;

/** 0 for the strongest grade, 5 for the weakest. Pure. */
export function evidenceRank(grade: EvidenceGrade): number {
  return EVIDENCE_GRADES.indexOf(grade);
}

/** The weakest of `grades`; null for none. Pure. */
export function weakestGrade(grades: Iterable<EvidenceGrade>): EvidenceGrade | null {
  let weakest: EvidenceGrade | null = null;
  for (const grade of grades) if (weakest === null || evidenceRank(grade) > evidenceRank(weakest)) weakest = grade;
  return weakest;
}
