import { EventEmitter } from 'node:events';
import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { RunningHandlers, type StopReason } from './control-listener.js';

/** A stand-in for the subscriber connection: a test emits what the channel would deliver. */
function channel(): { subscriber: Redis; deliver: (text: unknown) => void } {
  const emitter = new EventEmitter();
  return { subscriber: emitter as unknown as Redis, deliver: (text) => emitter.emit('smessage', 'p:control', text) };
}

describe('RunningHandlers', () => {
  it('aborts the named running handlers with the notice status and reason', () => {
    const { subscriber, deliver } = channel();
    const handlers = new RunningHandlers(subscriber, 'p:control');
    const job = handlers.start('job-1');
    const other = handlers.start('job-2');
    deliver(JSON.stringify({ kind: 'cancel', ids: ['job-1', 'elsewhere'], reason: 'stop', status: 'timeout' }));
    expect(job.signal.reason as StopReason).toEqual({ status: 'timeout', reason: 'stop' });
    expect(other.signal.aborted).toBe(false);
  });

  it.each<[string, unknown]>([
    ['null', 'null'],
    ['a number', '42'],
    ['an array', '[1,2]'],
    ['not JSON', '{"kind":'],
    ['ids of the wrong type', JSON.stringify({ kind: 'cancel', ids: 'job-1', reason: 'x', status: 'cancelled' })],
    ['an id that is not a message id', JSON.stringify({ kind: 'cancel', ids: [{ toString: 1 }], reason: 'x', status: 'cancelled' })],
    ['a reason of the wrong type', JSON.stringify({ kind: 'cancel', ids: ['job-1'], reason: null, status: 'cancelled' })],
    ['an unknown status', JSON.stringify({ kind: 'cancel', ids: ['job-1'], reason: 'x', status: 'exploded' })],
    ['a Buffer instead of text', Buffer.from('null')],
    ['undefined', undefined],
  ])('drops %s and reports it, without throwing or aborting anything', (_name, text) => {
    const { subscriber, deliver } = channel();
    const refused: string[] = [];
    const handlers = new RunningHandlers(subscriber, 'p:control', { onRefused: (reason) => refused.push(reason) });
    const job = handlers.start('job-1');
    expect(() => deliver(text)).not.toThrow();
    expect(job.signal.aborted).toBe(false);
    expect(refused).toHaveLength(1);
  });

  it('survives any text or JSON value on the channel (fuzzed)', () => {
    const { subscriber, deliver } = channel();
    const handlers = new RunningHandlers(subscriber, 'p:control', { onRefused: () => undefined });
    const job = handlers.start('job-1');
    const notices = fc.oneof(
      fc.string(),
      fc.json(),
      fc.record({ kind: fc.oneof(fc.constant('cancel'), fc.string()), ids: fc.anything(), reason: fc.anything(), status: fc.anything() }).map((value) => JSON.stringify(value)),
    );
    fc.assert(
      fc.property(notices, (text) => {
        deliver(text);
      }),
      { numRuns: 500 },
    );
    // Only a well-formed notice naming job-1 could have stopped it; the fuzz may have produced one.
    if (job.signal.aborted) expect(['cancelled', 'timeout']).toContain((job.signal.reason as StopReason).status);
  });

  it('with verification, aborts only the ids whose durable mark verifies, and survives a failing check', async () => {
    const { subscriber, deliver } = channel();
    let fail = false;
    const handlers = new RunningHandlers(subscriber, 'p:control', {
      verify: (ids) => (fail ? Promise.reject(new Error('redis down')) : Promise.resolve(ids.filter((id) => id === 'job-1'))),
    });
    const [one, two] = [handlers.start('job-1'), handlers.start('job-2')];
    deliver(JSON.stringify({ kind: 'cancel', ids: ['job-1', 'job-2'], reason: 'x', status: 'cancelled' }));
    await new Promise((resolve) => setImmediate(resolve));
    expect([one.signal.aborted, two.signal.aborted]).toEqual([true, false]);
    fail = true;
    deliver(JSON.stringify({ kind: 'cancel', ids: ['job-2'], reason: 'x', status: 'cancelled' }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(two.signal.aborted).toBe(false);
  });
});
