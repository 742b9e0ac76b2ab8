import { describe, expect, it } from 'vitest';
import { EVIDENCE_GRADES, evidenceGradeSchema, evidenceRank, weakestGrade } from './evidence-grade.js';
import { outcomePayloadSchema } from './payloads/outcome.js';

describe('evidence grades', () => {
  it('are six, strongest first', () => {
    expect(EVIDENCE_GRADES).toEqual(['NOBEL', 'PR', 'IV', 'PP', 'HEUR', 'DISC']);
    expect(evidenceRank('NOBEL')).toBe(0);
    expect(evidenceRank('DISC')).toBe(5);
  });

  it('combine to the weakest', () => {
    expect(weakestGrade([])).toBeNull();
    expect(weakestGrade(['PR'])).toBe('PR');
    expect(weakestGrade(['PR', 'HEUR', 'IV'])).toBe('HEUR');
    expect(weakestGrade(new Set(['NOBEL', 'DISC'] as const))).toBe('DISC');
  });

  it('are checked on the wire: an outcome may carry one of the six, nothing else', () => {
    expect(evidenceGradeSchema.safeParse('GOLD').success).toBe(false);
    const outcome = { status: 'success', summary: 'done', confidence: 0.9, execution_time_ms: 1 };
    expect(outcomePayloadSchema.parse({ ...outcome, evidence_grade: 'IV' }).evidence_grade).toBe('IV');
    expect(outcomePayloadSchema.parse(outcome).evidence_grade).toBeUndefined();
    expect(outcomePayloadSchema.safeParse({ ...outcome, evidence_grade: 'iv' }).success).toBe(false);
  });
});
