import type { StopReason } from '../cancellation/control-listener.js';
import { stoppedDraft } from './failures.js';
import type { OutcomeDraft } from '../policy/handler.js';
import { isBlockedWait, type Awaiting } from '../questions/awaiting.js';

/**
 * What a root that waited for answers sends when it stops waiting without them. Cancelled (or
 * stopped another way): `cancelled`, with the artifacts its round had brought. Out of time for
 * answers (`stop` null): the question as it was asked, as a run that does not wait would have
 * ended, its summary saying no answer came. A blocked wait that ran out ends `blocked`, with its
 * blockers, as a run that does not wait would have. Pure.
 */
export function unansweredDraft(awaiting: Awaiting, stop: StopReason | null): OutcomeDraft {
  // The draft was the policy's outcome when the wait began; the schema holds its shape.
  const asked = awaiting.draft as unknown as OutcomeDraft;
  if (stop) return { ...stoppedDraft(stop), artifacts: asked.artifacts ?? [] };
  const waited = Math.max(0, awaiting.until - awaiting.asked_at);
  if (isBlockedWait(awaiting)) return { ...asked, blockers: awaiting.blockers, summary: `${asked.summary} (not unblocked within ${waitText(waited)})` };
  return { ...asked, questions: awaiting.questions, summary: `${asked.summary} (no answer within ${waitText(waited)})` };
}

function waitText(ms: number): string {
  if (ms >= 3600_000 && ms % 3600_000 === 0) return `${ms / 3600_000} h`;
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s`;
}
