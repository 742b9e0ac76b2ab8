import { parseBeadsKey } from '@tierflow/beads';
import { describe, expect, it } from 'vitest';
import { BOTTLENECKS_KEY, historySegment, modelHistoryKey, parseHistoryKey, revisionHistoryKey, routingAccuracyKey, specialistHistoryKey, specialistHistoryPattern } from './history-keys.js';

describe('history keys', () => {
  it('names each key in the seed’s namespaces', () => {
    expect(specialistHistoryKey('execute_code', 'python-lora')).toBe('history/specialists/execute_code/python-lora');
    expect(modelHistoryKey('execute_code', 'python-lora', 'qwen/coder:7b')).toBe('history/specialists/execute_code/python-lora/models/qwen%2Fcoder%3A7b');
    expect(revisionHistoryKey('write')).toBe('history/revisions/write');
    expect(routingAccuracyKey()).toBe('system/routing-accuracy');
    expect(routingAccuracyKey('write')).toBe('system/routing-accuracy/write');
    expect(BOTTLENECKS_KEY).toBe('system/bottlenecks');
  });

  it.each(['a/b', 'two words', '.', '..', 'glob*', '%', 'ü'])('keeps %j one valid segment, read back as it was', (name) => {
    expect(historySegment(name)).not.toMatch(/[/\s*]/);
    const key = modelHistoryKey(name, name, name);
    expect(() => parseBeadsKey(key)).not.toThrow();
    expect(parseHistoryKey(key)).toEqual({ taskType: name, specialist: name, model: name });
    expect(parseHistoryKey(specialistHistoryKey(name, 'sim'))).toEqual({ taskType: name, specialist: 'sim', model: null });
  });

  it('reads back only keys of the two shapes', () => {
    for (const key of ['history/specialists/t', 'history/specialists/t/s/x', 'history/specialists/t/s/models/m/x', 'history/revisions/t', 'history/specialists/t/%E0']) {
      expect(parseHistoryKey(key), key).toBeNull();
    }
  });

  it('finds a task type’s keys, and only its own, by a glob', () => {
    expect(specialistHistoryPattern()).toBe('history/specialists/*');
    expect(specialistHistoryPattern('a*b')).toBe('history/specialists/a%2Ab/*');
  });
});
