import type { UpstreamWorkInput } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import type { DelegationDraft } from '../policy/handler.js';
import { inheritedHandoff } from './inherit-handoff.js';
import { toneIsolation } from './tone-isolation.js';

const draft: UpstreamWorkInput = { subtask_index: 1, message_id: 'r.0-0.0-0.0-0', task_type: 'write', specialist: 'copywriter', summary: 'A stunning draft!', confidence: 0.9, artifacts: [] };
const child = (extra: Partial<DelegationDraft> = {}): DelegationDraft => ({ task_type: 'analyse', objective: 'check', ...extra });
const summaries = (request: DelegationDraft) => (request.task_data?.upstream as { summary: string | null }[]).map((work) => work.summary);

describe('inheritedHandoff', () => {
  it("puts a child in its parent's thread unless it names its own", () => {
    expect(inheritedHandoff(child(), { thread_id: 't-1' }, [])).toEqual(child({ thread_id: 't-1' }));
    expect(inheritedHandoff(child({ thread_id: 't-2' }), { thread_id: 't-1' }, []).thread_id).toBe('t-2');
    expect(inheritedHandoff(child(), {}, [])).toEqual(child());
  });

  it("hands down the parent's constraints under the child's own", () => {
    const parent = { handoff: { cascade_check: false, max_context_tokens: 4000 } };
    expect(inheritedHandoff(child({ handoff: { cascade_check: true } }), parent, []).handoff).toEqual({ cascade_check: true, max_context_tokens: 4000 });
  });

  it('isolates upstream tone itself when asked to and the deployment runs no tone-isolation interceptor', () => {
    const asked = child({ handoff: { tone_isolation: true }, task_data: { upstream: [draft, { ...draft, task_type: 'analyse' }] } });
    expect(summaries(inheritedHandoff(asked, {}, []))).toEqual([null, 'A stunning draft!']);
    // The deployment's interceptor does it, with its groups, as the message is sent.
    expect(inheritedHandoff(asked, {}, [toneIsolation()])).toEqual(asked);
    const notAsked = child({ task_data: { upstream: [draft] } });
    expect(inheritedHandoff(notAsked, {}, [])).toEqual(notAsked);
  });
});
