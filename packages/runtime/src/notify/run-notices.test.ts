import { describe, expect, it, vi } from 'vitest';
import { buildRootOutcome } from '../messages/messages.js';
import { RunNotices } from './run-notices.js';
import type { WebhookEvent } from './webhook-events.js';

const ROOT = '0f8fad5b-d9cb-469f-a165-70867728950e';
const NOW = Date.parse('2026-11-29T12:00:00Z');
const silent = { info: () => undefined, warn: () => undefined };

function notices(): { notices: RunNotices; emitted: WebhookEvent[]; warnings: string[] } {
  const emitted: WebhookEvent[] = [];
  const warnings: string[] = [];
  const emitter = { emit: (event: WebhookEvent) => Promise.resolve(void emitted.push(event)) };
  return { notices: new RunNotices(emitter, '{t}', { ...silent, warn: (message) => warnings.push(message) }, () => NOW), emitted, warnings };
}

describe('RunNotices', () => {
  it('a root’s answer: `done`; something that is not an outcome: nothing, and a warning', () => {
    const { notices: run, emitted, warnings } = notices();
    run.rootAnswered(ROOT, buildRootOutcome(ROOT, `${ROOT}.0-0`, { status: 'failed', summary: 'no', confidence: 0.1 }, 5, NOW));
    run.rootAnswered(ROOT, { not: 'an outcome' });
    run.rootAnswered(undefined, null);
    expect(emitted.map((event) => [event.type, event.status])).toEqual([['done', 'failed']]);
    expect(warnings).toHaveLength(2);
  });

  it('questions asked for a review: `review` first, then `question`', () => {
    const { notices: run, emitted } = notices();
    const questions = [{ id: `${ROOT}.0-0-out`, question: 'review needed', tier: 'ROUTING_DISPATCHER' as const }];
    const check = { action: 'needs_review' as const, confidence: 0.4, threshold: 0.5, upstream_id: `${ROOT}.0-0.0-0.0-0`, checked_by: 'ROUTING_DISPATCHER' as const };
    run.questionsAsked(ROOT, { askedAt: NOW, until: NOW + 1, questions }, { status: 'needs_clarification', summary: 'held', cascade_check: check });
    run.questionsAsked(ROOT, { askedAt: NOW + 1, until: NOW + 2, questions }, { status: 'needs_clarification', summary: 'asked' });
    expect(emitted.map((event) => [event.type, event.node_id ?? null])).toEqual([
      ['review', check.upstream_id],
      ['question', null],
      ['question', null],
    ]);
  });

  it('an emitter that fails is logged, never thrown', async () => {
    const warnings: string[] = [];
    const run = new RunNotices({ emit: () => Promise.reject(new Error('redis away')) }, '{t}', { ...silent, warn: (message) => warnings.push(message) }, () => NOW);
    expect(() => run.blocked(ROOT, { detail: { reason: 'waiting for legal' } })).not.toThrow();
    await vi.waitFor(() => expect(warnings).toEqual(['could not queue a webhook event']));
  });
});
