import { isTierflowError } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { BEADS_NAMESPACES, beadsRef, isBeadsNamespace, parseBeadsKey } from './beads-key.js';

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('parseBeadsKey', () => {
  it.each([
    ['task/current-objective', 'task', 'current-objective'],
    ['beads:task/current-objective', 'task', 'current-objective'],
    ['execution/outputs/msg-1', 'execution', 'outputs/msg-1'],
    ['system/seen-messages/fleet/3fa85f64-5717-4562-b3fc-2c963f66afa6', 'system', 'seen-messages/fleet/3fa85f64-5717-4562-b3fc-2c963f66afa6'],
    ['history/routines/a.b..c', 'history', 'routines/a.b..c'],
    ['routing/*', 'routing', '*'],
  ])('%s → %s / %s', (input, namespace, path) => {
    expect(parseBeadsKey(input)).toEqual({ namespace, path, key: `${namespace}/${path}` });
  });

  it.each([
    ['tasks/x', 'unknown namespace "tasks"; expected one of task, routing, execution, system, history'],
    ['Task/x', 'unknown namespace "Task"'],
    ['', 'unknown namespace ""'],
    ['beads:', 'unknown namespace ""'],
    ['beads:beads:task/x', 'unknown namespace "beads:task"'],
    ['task', 'empty path; expected task/<path>'],
    ['task/', 'empty path; expected task/<path>'],
    ['task//x', 'empty path segment'],
    ['task/x/', 'empty path segment'],
    ['task/../system/x', '".." segments are not allowed'],
    ['task/a/..', '".." segments are not allowed'],
    ['task/./x', '"." segments are not allowed'],
    ['task/a b', 'whitespace and control characters are not allowed'],
    ['task/a\tb', 'whitespace and control characters are not allowed'],
    ['task/a\nb', 'whitespace and control characters are not allowed'],
    ['task/a\u0000b', 'whitespace and control characters are not allowed'],
    [`task/${'x'.repeat(508)}`, '513 characters, more than 512'],
  ])('refuses %j', (input, why) => {
    const error = thrownBy(() => parseBeadsKey(input));
    expect(isTierflowError(error)).toBe(true);
    expect(error).toMatchObject({ code: 'invalid_beads_key', retryable: false });
    expect((error as Error).message).toContain(why);
  });

  it('accepts exactly 512 characters, beads: not counted', () => {
    const key = `task/${'x'.repeat(507)}`;
    expect(parseBeadsKey(`beads:${key}`).key).toBe(key);
  });

  it('names the key in the message, shortened when long', () => {
    expect(() => parseBeadsKey('nope/x')).toThrow('invalid Beads key "nope/x": unknown namespace "nope"');
    expect((thrownBy(() => parseBeadsKey(`task/${'y'.repeat(600)}`)) as Error).message).toMatch(/^invalid Beads key "task\/y{75}…": 605 characters/);
  });
});

describe('beadsRef', () => {
  it('adds beads: once', () => {
    expect(beadsRef('task/x')).toBe('beads:task/x');
    expect(beadsRef('beads:task/x')).toBe('beads:task/x');
  });

  it('refuses a malformed key', () => {
    expect(() => beadsRef('nope/x')).toThrow(/unknown namespace/);
  });
});

describe('isBeadsNamespace', () => {
  it('knows the five namespaces and nothing else', () => {
    expect(BEADS_NAMESPACES.every(isBeadsNamespace)).toBe(true);
    expect(['tasks', '', 'TASK', undefined, 1].some(isBeadsNamespace)).toBe(false);
  });
});
