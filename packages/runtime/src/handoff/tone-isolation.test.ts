import { delegationPayloadSchema, type UpstreamWorkInput } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { composeHandoffChain } from './chain.js';
import type { DelegationHandoff } from '../policy/handoff.js';
import { crossesTaskTypes, factualContent, toneIsolation, type ToneIsolationOptions } from './tone-isolation.js';

const draft: UpstreamWorkInput = {
  subtask_index: 1,
  message_id: 'root-1.0-0.0-0.0-0',
  task_type: 'write',
  specialist: 'copywriter',
  summary: 'An absolutely stunning, game-changing draft!',
  confidence: 0.9,
  evidence_grade: 'PP',
  artifacts: [{ artifact_type: 'text', inline_content: 'Revenue grew 12% in 2025 (annual report, p. 4).' }],
};

function delegation(taskType: string, upstream: unknown, extra: Record<string, unknown> = {}): DelegationHandoff {
  return {
    kind: 'delegation',
    id: 'root-1.0-0.0-0.1-1',
    rootId: 'root-1',
    from: 'ROUTING_DISPATCHER',
    to: 'SPECIALIZED_FLEET',
    signal: new AbortController().signal,
    payload: delegationPayloadSchema.parse({ task_type: taskType, objective: 'check the claims', task_data: { subtask_index: 2, ...(upstream === undefined ? {} : { upstream }) }, ...extra }),
  };
}

const send = async (options: ToneIsolationOptions, handoff: DelegationHandoff) => (await composeHandoffChain([toneIsolation(options)], 'send')!(handoff)) as DelegationHandoff;
const upstreamOf = (handoff: { payload: DelegationHandoff['payload'] }) => handoff.payload.task_data.upstream as { summary: string | null; artifacts: unknown[] }[];

describe('tone isolation', () => {
  it('hands work across task types as its factual content: the artifacts and figures, not the sender’s words', async () => {
    const sent = await send({}, delegation('analyse', [draft]));
    expect(upstreamOf(sent)).toEqual([
      {
        ...draft,
        summary: null,
        artifacts: [{ artifact_type: 'text', inline_content: 'Revenue grew 12% in 2025 (annual report, p. 4).', content_ref: null, metadata: {} }],
      },
    ]);
    expect(sent.payload.task_data.subtask_index).toBe(2);
  });

  it('leaves work of the same task type, or of one group, as it is', async () => {
    const same = delegation('write', [draft]);
    expect(await send({}, same)).toBe(same);
    const grouped = delegation('edit', [draft]);
    expect(upstreamOf(await send({ groups: { generative: ['write', 'edit'] } }, grouped))[0]!.summary).toBe(draft.summary);
    expect(crossesTaskTypes('write', 'edit', () => 'one')).toBe(false);
  });

  it('leaves alone a delegation that opts out with handoff.tone_isolation: false', async () => {
    const optedOut = delegation('analyse', [draft], { handoff: { tone_isolation: false } });
    expect(await send({}, optedOut)).toBe(optedOut);
    expect(upstreamOf(await send({}, delegation('analyse', [draft], { handoff: { tone_isolation: true } })))[0]!.summary).toBeNull();
  });

  it('leaves a delegation without upstream work alone', async () => {
    const plain = delegation('analyse', undefined);
    expect(await send({}, plain)).toBe(plain);
  });

  it('takes a rewriter of its own, a model say, in place of the built-in', async () => {
    const seen: string[] = [];
    const rewritten = await send(
      {
        isolate: (work, target) => {
          seen.push(`${work.task_type} → ${target.task_type}`);
          return { ...factualContent(work), artifacts: [{ artifact_type: 'claims', inline_content: '["revenue +12% in 2025"]', content_ref: null, metadata: {} }] };
        },
      },
      delegation('analyse', [draft]),
    );
    expect(seen).toEqual(['write → analyse']);
    expect(upstreamOf(rewritten)[0]).toMatchObject({ summary: null, artifacts: [{ artifact_type: 'claims' }] });
  });

  it('refuses the handoff rather than pass on what it cannot isolate', async () => {
    await expect(send({}, delegation('analyse', 'the draft, in prose'))).rejects.toThrow(
      'tone-isolation refused the delegation root-1.0-0.0-0.1-1 from ROUTING_DISPATCHER to SPECIALIZED_FLEET: task_data.upstream is not a list of upstream work',
    );
    await expect(send({ isolate: (work) => ({ ...work, confidence: 3 }) }, delegation('analyse', [draft]))).rejects.toThrow('the isolated work of subtask 1 is invalid: $.confidence');
  });
});
