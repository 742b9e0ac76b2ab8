import { describe, expect, it } from 'vitest';
import { InvalidJobError } from '../messages/assignment.js';
import { AssignmentMemo } from './assignment-memo.js';
import { buildDelegation } from '../messages/messages.js';

const message = (id: string) => buildDelegation('ABSTRACT_ARCHITECT', id, 'r.0-0', { task_type: 'route', objective: 'x' }, Date.now());

describe('AssignmentMemo', () => {
  it('validates a job once, and answers its later passes from memory', () => {
    const memo = new AssignmentMemo('ROUTING_DISPATCHER');
    const job = { id: 'r.0-0.0-0', timestamp: 1, data: message('r.0-0.0-0') };
    const first = memo.read(job);
    expect(first.id).toBe('r.0-0.0-0');
    // A second pass gets the same object back, even though BullMQ hands it new data.
    expect(memo.read({ ...job, data: structuredClone(job.data) })).toBe(first);
  });

  it('validates again a job re-added under the same id', () => {
    const memo = new AssignmentMemo('ROUTING_DISPATCHER');
    const first = memo.read({ id: 'r.0-0.0-0', timestamp: 1, data: message('r.0-0.0-0') });
    expect(memo.read({ id: 'r.0-0.0-0', timestamp: 2, data: message('r.0-0.0-0') })).not.toBe(first);
    expect(() => memo.read({ id: 'r.0-0.0-0', timestamp: 3, data: { nonsense: true } })).toThrow(InvalidJobError);
  });

  it('keeps at most its limit, dropping the oldest, and forgets finished jobs', () => {
    const memo = new AssignmentMemo('ROUTING_DISPATCHER', 2);
    const jobs = ['a.0-0.0-0', 'b.0-0.0-0', 'c.0-0.0-0'].map((id) => ({ id, timestamp: 1, data: message(id) }));
    const [a] = jobs.map((job) => memo.read(job));
    expect(memo.size).toBe(2);
    expect(memo.read(jobs[0]!)).not.toBe(a);
    memo.forget('a.0-0.0-0');
    expect(memo.size).toBe(1);
  });
});
