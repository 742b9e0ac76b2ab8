import { describe, expect, it } from 'vitest';
import { entriesOf, monitorEventOf } from './monitor-events.js';

describe('monitorEventOf', () => {
  it('reads a completed event with its return value as text, and a failed one', () => {
    expect(monitorEventOf(['event', 'completed', 'jobId', 'r1', 'returnvalue', '{"a":1}', 'prev', 'active'])).toEqual({
      kind: 'completed',
      rootId: 'r1',
      returnvalue: '{"a":1}',
    });
    expect(monitorEventOf(['event', 'failed', 'jobId', 'r1', 'failedReason', 'boom'])).toEqual({ kind: 'failed', rootId: 'r1' });
  });

  it('passes over the events a waiter has no use for', () => {
    for (const event of ['added', 'waiting', 'active', 'drained', 'progress', 'retries-exhausted', 'error', 'something-new']) {
      expect(monitorEventOf(['event', event, 'data', '{not json'])).toEqual({ kind: 'other' });
    }
  });

  it('tells each kind of malformed entry, and never throws', () => {
    expect(monitorEventOf(['foo', 'bar'])).toMatchObject({ kind: 'malformed', problem: 'no_event_name' });
    expect(monitorEventOf(['event', 'completed', 'returnvalue', '{}'])).toMatchObject({ kind: 'malformed', problem: 'bad_completed' });
    expect(monitorEventOf(['event', 'completed', 'jobId', 'r1'])).toMatchObject({ kind: 'malformed', problem: 'bad_completed' });
    expect(monitorEventOf(['event', 'completed', 'jobId', '', 'returnvalue', '{}'])).toMatchObject({ kind: 'malformed', problem: 'bad_completed' });
    expect(monitorEventOf(['event', 'failed'])).toMatchObject({ kind: 'malformed', problem: 'bad_failed' });
    for (const junk of [null, undefined, 42, 'event', {}, ['event'], [1, 2], ['event', null], [['event', 'completed']]]) {
      expect(monitorEventOf(junk)).toMatchObject({ kind: 'malformed', problem: 'unreadable_entry' });
    }
  });

  it('takes a field named __proto__ as a field like any other', () => {
    expect(monitorEventOf(['__proto__', 'x', 'event', 'failed', 'jobId', 'r1'])).toEqual({ kind: 'failed', rootId: 'r1' });
    expect(monitorEventOf(['event', 'completed', '__proto__', '{}', 'jobId', 'r1'])).toMatchObject({ kind: 'malformed', problem: 'bad_completed' });
  });
});

describe('entriesOf', () => {
  it('lists the entries of an XREAD reply, and none for a read that timed out', () => {
    expect(
      entriesOf([
        [
          'k',
          [
            ['1-0', ['event', 'drained']],
            ['2-0', ['event', 'failed', 'jobId', 'r']],
          ],
        ],
      ]),
    ).toEqual({
      entries: [
        { id: '1-0', fields: ['event', 'drained'] },
        { id: '2-0', fields: ['event', 'failed', 'jobId', 'r'] },
      ],
      unreadable: 0,
    });
    expect(entriesOf(null)).toEqual({ entries: [], unreadable: 0 });
  });

  it('counts entries without an id and refuses what is not a stream reply', () => {
    expect(entriesOf([['k', [['1-0', ['a', 'b']], [null, ['a']], 'junk']]])).toEqual({ entries: [{ id: '1-0', fields: ['a', 'b'] }], unreadable: 2 });
    expect(entriesOf('OK')).toBeNull();
    expect(entriesOf([['k', 'x']])).toBeNull();
  });
});
