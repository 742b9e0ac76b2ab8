import { describe, expect, it } from 'vitest';
import { deliveryOf, type DeliveryJobView } from './webhook-deliveries.js';
import { blockedEvent } from './webhook-events.js';

const event = blockedEvent({ deployment: '{t}', rootId: 'root-1', now: 0 }, { detail: { reason: 'r' } });
const job = (overrides: Partial<DeliveryJobView>): DeliveryJobView => ({
  data: { event, url: 'https://a.test/hook' },
  progress: 0,
  state: 'waiting',
  attemptsMade: 0,
  maxAttempts: 8,
  failedReason: undefined,
  timestamp: 1_000,
  finishedOn: undefined,
  ...overrides,
});

describe('deliveryOf', () => {
  it('shows a delivery as it stands', () => {
    expect(deliveryOf(job({}))).toEqual({
      event_id: event.id,
      type: 'blocked',
      root_id: 'root-1',
      url: 'https://a.test/hook',
      state: 'pending',
      attempts: 0,
      max_attempts: 8,
      last_status: null,
      last_error: null,
      queued_at: 1_000,
      finished_at: null,
    });
    expect(deliveryOf(job({ state: 'delayed', attemptsMade: 1, progress: { last_status: 500, last_error: 'HTTP 500', attempted_at: 2 } }))).toMatchObject({
      state: 'retrying',
      last_status: 500,
      last_error: 'HTTP 500',
    });
    expect(deliveryOf(job({ state: 'completed', attemptsMade: 2, finishedOn: 3_000, progress: { last_status: 200, last_error: null, attempted_at: 2 } }))).toMatchObject({
      state: 'delivered',
      attempts: 2,
      finished_at: 3_000,
    });
    expect(deliveryOf(job({ state: 'failed', attemptsMade: 8, failedReason: 'HTTP 503' }))).toMatchObject({ state: 'failed', last_error: 'HTTP 503' });
  });

  it('leaves out a job that is not a delivery', () => {
    expect(deliveryOf(job({ data: { event: { type: 'done' }, url: 1 } }))).toBeNull();
    expect(deliveryOf(job({ data: null }))).toBeNull();
  });
});
