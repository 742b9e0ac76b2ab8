import { describe, expect, it } from 'vitest';
import { applyEdits, parseEdit, parseEdits } from './edits.js';

const objective = {
  objective: 'write the pieces',
  constraints: ['be brief', 'no jargon'],
  task_data: { plan: { strategy: 'all_success', subtasks: [{ objective: 'piece 1' }, { objective: 'piece 2' }] } },
};

describe('parseEdit', () => {
  it('takes the value as JSON when it parses, else as the text it is', () => {
    expect(parseEdit('priority=3')).toEqual({ path: ['priority'], value: 3 });
    expect(parseEdit('task_data.flag=true')).toEqual({ path: ['task_data', 'flag'], value: true });
    expect(parseEdit('objective="42"')).toEqual({ path: ['objective'], value: '42' });
    expect(parseEdit('objective=write it in French')).toEqual({ path: ['objective'], value: 'write it in French' });
    expect(parseEdit('task_data.notes={"tone":"dry"}')).toEqual({ path: ['task_data', 'notes'], value: { tone: 'dry' } });
    // Only the first = splits: the value may hold more.
    expect(parseEdit('objective=a=b')).toEqual({ path: ['objective'], value: 'a=b' });
    expect(parseEdit('objective=')).toEqual({ path: ['objective'], value: '' });
  });

  it('refuses a text without =, an empty field, and fields that reach a prototype', () => {
    expect(() => parseEdit('objective')).toThrow(/expected <path>=<value>/);
    expect(() => parseEdit('=1')).toThrow(/is not a path/);
    expect(() => parseEdit('task_data..x=1')).toThrow(/is not a path/);
    expect(() => parseEdit('.objective=1')).toThrow(/is not a path/);
    expect(() => parseEdit('__proto__.polluted=1')).toThrow(/cannot be edited/);
    expect(() => parseEdit('task_data.constructor.prototype=1')).toThrow(/cannot be edited/);
    expect(() => parseEdits(['objective=x', 'nope'])).toThrow(expect.objectContaining({ code: 'invalid_argument' }) as Error);
  });
});

describe('applyEdits', () => {
  it('returns a new value with each edit made in order, the original untouched', () => {
    const before = structuredClone(objective);
    const edited = applyEdits(objective, ['objective=write them again', 'constraints.1="plain words"', 'task_data.plan.subtasks.0.objective=piece one', 'constraints.2=be kind']);
    expect(edited).toEqual({
      objective: 'write them again',
      constraints: ['be brief', 'plain words', 'be kind'],
      task_data: { plan: { strategy: 'all_success', subtasks: [{ objective: 'piece one' }, { objective: 'piece 2' }] } },
    });
    expect(objective).toEqual(before);
    // A later edit sees an earlier one.
    expect(applyEdits(objective, ['objective=a', 'objective=b'])).toMatchObject({ objective: 'b' });
  });

  it('makes missing fields on the way, and takes parsed edits as well as texts', () => {
    expect(applyEdits({ objective: 'x' }, ['task_data.notes.tone=dry'])).toEqual({ objective: 'x', task_data: { notes: { tone: 'dry' } } });
    expect(applyEdits({ objective: 'x' }, [{ path: ['timeout_ms'], value: 5000 }])).toEqual({ objective: 'x', timeout_ms: 5000 });
    // A number names a field of an object.
    expect(applyEdits({ table: {} }, ['table.3=three'])).toEqual({ table: { 3: 'three' } });
  });

  it('says where a path stops', () => {
    expect(() => applyEdits(objective, ['objective.text=x'])).toThrow('--set objective.text: objective is a string, which has no field "text"');
    expect(() => applyEdits(objective, ['constraints.5=x'])).toThrow('--set constraints.5: constraints has 2 items; there is no place 5 in it');
    expect(() => applyEdits(objective, ['constraints.first=x'])).toThrow(/constraints is a list; "first" is no place in it/);
    expect(() => applyEdits(objective, ['task_data.plan.subtasks.2.objective=x'])).toThrow(/subtasks has 2 items; there is no place 2/);
    expect(() => applyEdits('text', ['a=1'])).toThrow(/the value is a string/);
  });
});
