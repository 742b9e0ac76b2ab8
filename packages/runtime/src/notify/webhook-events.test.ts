import { describe, expect, it } from 'vitest';
import { buildRootOutcome } from '../messages/messages.js';
import { blockedEvent, questionEvent, rootOutcomeEvents, securityEvent, webhookEventId, webhookEventSchema } from './webhook-events.js';
import { deliveryJobId, subscribersOf } from './webhook-queue.js';

const ROOT = '0f8fad5b-d9cb-469f-a165-70867728950e';
const NOW = Date.parse('2026-11-29T12:00:00Z');
const source = { deployment: '{tierflow}', rootId: ROOT, now: NOW };

describe('webhook events', () => {
  it('a root’s answer is `done`, with its status, summary and confidence', () => {
    const outcome = buildRootOutcome(ROOT, `${ROOT}.0-0`, { status: 'success', summary: 'all done', confidence: 0.9 }, 1_000, NOW);
    const events = rootOutcomeEvents(source, outcome);
    expect(events).toEqual([
      {
        id: webhookEventId('{tierflow}', 'done', ROOT, undefined),
        type: 'done',
        time: '2026-11-29T12:00:00.000Z',
        deployment: '{tierflow}',
        root_id: ROOT,
        status: 'success',
        summary: 'all done',
        detail: { confidence: 0.9, error_type: null, outcome_id: outcome.id },
      },
    ]);
    expect(events.map((event) => webhookEventSchema.parse(event))).toEqual(events);
  });

  it('a root whose gravest check held work for review is `review` (naming the node) and `done`', () => {
    const check = { action: 'needs_review' as const, confidence: 0.4, threshold: 0.5, upstream_id: `${ROOT}.0-0.0-0`, checked_by: 'ROUTING_DISPATCHER' as const };
    const outcome = buildRootOutcome(
      ROOT,
      `${ROOT}.0-0`,
      { status: 'needs_clarification', summary: 'held for review: x', confidence: 0.4, error_type: 'needs_review', cascade_check: check },
      1_000,
      NOW,
    );
    const [review, done] = rootOutcomeEvents(source, outcome);
    expect(review).toMatchObject({ type: 'review', node_id: check.upstream_id, detail: { upstream_id: check.upstream_id, confidence: 0.4, threshold: 0.5, checked_by: 'ROUTING_DISPATCHER' } });
    expect(done).toMatchObject({ type: 'done', status: 'needs_clarification', detail: { error_type: 'needs_review' } });
    expect(webhookEventSchema.safeParse(review).success).toBe(true);
  });

  it('a run’s questions are `question`, one event per wait', () => {
    const questions = [{ id: `${ROOT}.0-0-out`, question: 'Which database?', tier: 'ABSTRACT_ARCHITECT' as const }];
    const first = questionEvent(source, { askedAt: NOW, until: NOW + 60_000, questions });
    const again = questionEvent(source, { askedAt: NOW + 5, until: NOW + 60_000, questions });
    expect(first).toMatchObject({ type: 'question', status: 'needs_clarification', summary: 'Which database?', detail: { questions, asked_at: NOW, until: NOW + 60_000 } });
    expect(first.id).not.toBe(again.id);
    expect(webhookEventSchema.safeParse(first).success).toBe(true);
  });

  it('`blocked` and `security` have their shapes', () => {
    const blocked = blockedEvent(source, { nodeId: `${ROOT}.0-0`, detail: { reason: 'waiting for an approval', blocked_on: 'legal' } });
    const security = securityEvent(source, { detail: { kind: 'prompt_injection', severity: 'high', message: 'a tool result asked to ignore instructions' } });
    expect(webhookEventSchema.parse(blocked)).toMatchObject({ type: 'blocked', status: 'blocked', node_id: `${ROOT}.0-0` });
    expect(webhookEventSchema.parse(security)).toMatchObject({ type: 'security', detail: { severity: 'high' } });
    expect(webhookEventSchema.safeParse({ ...security, detail: { ...security.detail, severity: 'dire' } }).success).toBe(false);
  });

  it('ids are the same for every process that sees the event, and differ between events', () => {
    expect(webhookEventId('{t}', 'done', ROOT, undefined)).toBe(webhookEventId('{t}', 'done', ROOT, undefined));
    expect(webhookEventId('{t}', 'done', ROOT, undefined)).toMatch(/^evt_[0-9a-f]{32}$/);
    const ids = new Set([
      webhookEventId('{t}', 'done', ROOT, undefined),
      webhookEventId('{u}', 'done', ROOT, undefined),
      webhookEventId('{t}', 'review', ROOT, undefined),
      webhookEventId('{t}', 'done', ROOT, 'n'),
      webhookEventId('{t}', 'done', ROOT, undefined, 'k'),
    ]);
    expect(ids.size).toBe(5);
  });

  it('a delivery is one per event and URL, and goes to the subscriptions that want it', () => {
    expect(deliveryJobId('evt_1', 'https://a.test')).toBe(deliveryJobId('evt_1', 'https://a.test'));
    expect(deliveryJobId('evt_1', 'https://a.test')).not.toBe(deliveryJobId('evt_1', 'https://b.test'));
    expect(deliveryJobId('evt_1', 'https://a.test')).not.toContain(':');
    const subscriptions = [
      { url: 'https://a.test', events: ['done' as const], secret: 's', maxAttempts: 1, timeoutMs: 100 },
      { url: 'https://b.test', events: ['review' as const, 'done' as const], secret: 's', maxAttempts: 1, timeoutMs: 100 },
    ];
    expect(subscribersOf({ type: 'review' }, subscriptions).map((s) => s.url)).toEqual(['https://b.test']);
    expect(subscribersOf({ type: 'done' }, subscriptions)).toHaveLength(2);
  });
});
