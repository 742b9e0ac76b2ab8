import { EventEmitter } from 'node:events';
import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION, type CancellationMessage } from '@tierflow/protocol';
import { RunningHandlers, type RunningHandlersOptions, type StopReason } from './control-listener.js';

/** A stand-in for the subscriber connection: a test emits what the channel would deliver. */
function channel(): { subscriber: Redis; deliver: (text: unknown) => void } {
  const emitter = new EventEmitter();
  return { subscriber: emitter as unknown as Redis, deliver: (text) => emitter.emit('smessage', 'p:control', text) };
}

/** A mark cancelling `id`, as a reader returns it once it has checked it. */
function mark(id: string, reason: string, errorType?: string): CancellationMessage {
  return {
    version: PROTOCOL_VERSION,
    id: `${id}.cancel`,
    timestamp: '2026-01-01T00:00:00.000Z',
    source_tier: 'PROGRESS_MONITOR',
    target_tier: 'SPECIALIZED_FLEET',
    correlation_id: id,
    payload: { target_message_id: id, reason, cascade: true, ...(errorType ? { error_type: errorType } : {}) },
  };
}

/** Marks that hold for the ids in `held`; every read is recorded in `asked`. */
function marksOf(held: Record<string, CancellationMessage>, asked: string[][] = []): RunningHandlersOptions['marks'] {
  return (ids) => {
    asked.push([...ids]);
    return Promise.resolve(new Map(ids.flatMap((id) => (held[id] ? [[id, held[id]] as const] : []))));
  };
}

const noMarks = marksOf({});
const settled = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('RunningHandlers', () => {
  it('stops the named handlers running here by their marks, read in one go, each carrying its mark', async () => {
    const { subscriber, deliver } = channel();
    const asked: string[][] = [];
    const marks = { 'job-1': mark('job-1', 'stop'), 'job-3': mark('job-3', 'over budget', 'budget_exceeded') };
    const handlers = new RunningHandlers(subscriber, 'p:control', { marks: marksOf(marks, asked) });
    const [one, two, three] = [handlers.start('job-1'), handlers.start('job-2'), handlers.start('job-3')];
    deliver(JSON.stringify({ kind: 'cancel', ids: ['job-1', 'job-2', 'job-3', 'elsewhere'], reason: 'notice text', status: 'cancelled' }));
    await settled();
    expect(asked).toEqual([['job-1', 'job-2', 'job-3']]);
    expect(one.signal.reason as StopReason).toEqual({ status: 'cancelled', reason: 'stop', cancellation: marks['job-1'] });
    expect(three.signal.reason as StopReason).toEqual({ status: 'cancelled', reason: 'over budget', errorType: 'budget_exceeded', cancellation: marks['job-3'] });
    // A notice alone, which anyone who can publish could send, stops nothing.
    expect(two.signal.aborted).toBe(false);
  });

  it('reads nothing for a notice that names no handler running here', async () => {
    const { subscriber, deliver } = channel();
    const asked: string[][] = [];
    const handlers = new RunningHandlers(subscriber, 'p:control', { marks: marksOf({}, asked) });
    handlers.start('job-1');
    deliver(JSON.stringify({ kind: 'cancel', ids: ['elsewhere'], reason: 'x', status: 'cancelled' }));
    await settled();
    expect(asked).toEqual([]);
  });

  it('hands a room notice to the waiters for room, and aborts nothing for it', async () => {
    const { subscriber, deliver } = channel();
    const asked: string[][] = [];
    const woken: (readonly string[])[] = [];
    const handlers = new RunningHandlers(subscriber, 'p:control', { marks: marksOf({}, asked), onRoom: (ids) => woken.push(ids) });
    const job = handlers.start('job-1');
    deliver(JSON.stringify({ kind: 'room', ids: ['job-1', 'w-2'] }));
    await settled();
    expect(woken).toEqual([['job-1', 'w-2']]);
    expect(asked).toEqual([]);
    expect(job.signal.aborted).toBe(false);
  });

  it.each<[string, unknown]>([
    ['null', 'null'],
    ['a room notice naming no one', JSON.stringify({ kind: 'room', ids: [] })],
    ['an unknown kind', JSON.stringify({ kind: 'reboot', ids: ['job-1'] })],
    ['a number', '42'],
    ['an array', '[1,2]'],
    ['not JSON', '{"kind":'],
    ['ids of the wrong type', JSON.stringify({ kind: 'cancel', ids: 'job-1', reason: 'x', status: 'cancelled' })],
    ['an id that is not a message id', JSON.stringify({ kind: 'cancel', ids: [{ toString: 1 }], reason: 'x', status: 'cancelled' })],
    ['a reason of the wrong type', JSON.stringify({ kind: 'cancel', ids: ['job-1'], reason: null, status: 'cancelled' })],
    ['an unknown status', JSON.stringify({ kind: 'cancel', ids: ['job-1'], reason: 'x', status: 'exploded' })],
    ['a Buffer instead of text', Buffer.from('null')],
    ['undefined', undefined],
  ])('drops %s and reports it, without throwing or aborting anything', async (_name, text) => {
    const { subscriber, deliver } = channel();
    const refused: string[] = [];
    const handlers = new RunningHandlers(subscriber, 'p:control', { marks: marksOf({ 'job-1': mark('job-1', 'x') }), onRefused: (reason) => refused.push(reason) });
    const job = handlers.start('job-1');
    expect(() => deliver(text)).not.toThrow();
    await settled();
    expect(job.signal.aborted).toBe(false);
    expect(refused).toHaveLength(1);
  });

  it('survives any text or JSON value on the channel (fuzzed)', () => {
    const { subscriber, deliver } = channel();
    const handlers = new RunningHandlers(subscriber, 'p:control', { marks: noMarks, onRefused: () => undefined });
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

  it('survives a failing read of the marks, and says so', async () => {
    const { subscriber, deliver } = channel();
    const unread: unknown[] = [];
    const handlers = new RunningHandlers(subscriber, 'p:control', { marks: () => Promise.reject(new Error('redis down')), onUnread: (error) => unread.push(error) });
    const job = handlers.start('job-1');
    deliver(JSON.stringify({ kind: 'cancel', ids: ['job-1'], reason: 'x', status: 'cancelled' }));
    await settled();
    expect(job.signal.aborted).toBe(false);
    expect(unread).toEqual([new Error('redis down')]);
  });
});
