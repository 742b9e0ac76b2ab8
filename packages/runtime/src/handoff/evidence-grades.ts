import { EVIDENCE_GRADES, evidenceGradeSchema, evidenceRank, fastSafeParse, TierflowError, weakestGrade, type Artifact, type EvidenceGrade, type OutcomePayload } from '@tierflow/protocol';
import type { HandoffInterceptor, OutcomeHandoff } from '../policy/handoff.js';

export interface EvidenceGradeOptions {
  /** The weakest grade a tier takes for work that succeeded (or partly did); weaker work is refused. */
  readonly minimum?: EvidenceGrade;
  /** Refuse work that succeeded (or partly did) with no grade at all. Default false. */
  readonly required?: boolean;
}

/** The interceptor's name, in refusals and in the project file. */
export const EVIDENCE_GRADES_INTERCEPTOR = 'evidence-grades';

/**
 * Evidence grades (docs/protocol.md#evidence-grades), carried up with the work:
 * - on send, work done here has its artifacts stamped with its outcome's grade (so the grade
 *   travels with each piece of work through any aggregation), and every outcome reports the
 *   weakest grade behind it: its own, its artifacts', and those of the children it relied on;
 * - on receive, a grade on an artifact must be one of the six, and work that succeeded is held
 *   to `minimum` and `required`: what falls short is refused, as failed work.
 */
export function evidenceGrades(options: EvidenceGradeOptions = {}): HandoffInterceptor {
  if (options.minimum !== undefined && !isGrade(options.minimum)) {
    throw TierflowError.permanent(`evidenceGrades: minimum ${JSON.stringify(options.minimum)} is not one of ${EVIDENCE_GRADES.join(', ')}`, { code: 'invalid_config' });
  }
  const minimum = options.minimum ?? null;
  return {
    name: EVIDENCE_GRADES_INTERCEPTOR,
    send: (handoff, next) => next(handoff.kind === 'outcome' ? { ...handoff, payload: graded(handoff) } : handoff),
    receive: (handoff, next) => {
      if (handoff.kind === 'outcome') check(handoff, minimum, options.required ?? false);
      return next(handoff);
    },
  };
}

/** The outcome with its weakest grade, its own work's artifacts stamped with its own grade. Pure. */
export function graded(handoff: Pick<OutcomeHandoff, 'payload' | 'received'>): OutcomePayload {
  const { payload, received } = handoff;
  const own = payload.evidence_grade ?? null;
  // Work is graded where it is done: a tier that delegated passes on its children's grades as they came.
  const stamp = own !== null && received.length === 0;
  const artifacts = stamp ? payload.artifacts.map((artifact) => (gradeOf(artifact) === undefined ? withGrade(artifact, own) : artifact)) : payload.artifacts;
  const relied = received.filter((child) => child.outcome.payload.status === 'success').map((child) => child.outcome.payload.evidence_grade ?? null);
  const weakest = weakestGrade([own, ...relied, ...artifacts.map(gradeOf)].filter((grade): grade is EvidenceGrade => isGrade(grade)));
  if (weakest === null && !stamp) return payload;
  return { ...payload, artifacts, ...(weakest === null ? {} : { evidence_grade: weakest }) };
}

/** @throws Error saying what falls short; the chain turns it into a refusal. */
function check(handoff: OutcomeHandoff, minimum: EvidenceGrade | null, required: boolean): void {
  const { payload } = handoff;
  payload.artifacts.forEach((artifact, index) => {
    const grade = gradeOf(artifact);
    if (grade !== undefined && !isGrade(grade)) {
      throw new Error(`artifact ${index} has evidence_grade ${JSON.stringify(grade)}, not one of ${EVIDENCE_GRADES.join(', ')}`);
    }
  });
  if (payload.status !== 'success' && payload.status !== 'partial') return;
  const grade = payload.evidence_grade ?? weakestGrade(payload.artifacts.map(gradeOf).filter(isGrade));
  if (grade === null) {
    if (required) throw new Error('the work carries no evidence grade, and this deployment requires one');
    return;
  }
  if (minimum !== null && evidenceRank(grade) > evidenceRank(minimum)) throw new Error(`the work is graded ${grade}, weaker than the minimum ${minimum}`);
}

function gradeOf(artifact: Artifact): unknown {
  return artifact.metadata.evidence_grade;
}

function isGrade(value: unknown): value is EvidenceGrade {
  return fastSafeParse(evidenceGradeSchema, value).success;
}

function withGrade(artifact: Artifact, grade: EvidenceGrade): Artifact {
  return { ...artifact, metadata: { ...artifact.metadata, evidence_grade: grade } };
}
