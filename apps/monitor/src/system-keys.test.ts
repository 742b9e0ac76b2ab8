import { parseBeadsKey } from '@tierflow/beads';
import { describe, expect, it } from 'vitest';
import { boundsKey, keySegment, runKeys } from './system-keys.js';

describe('keySegment', () => {
  it.each<[string, string]>([
    ['execute_code', 'execute_code'],
    ['two words', 'two%20words'],
    ['a/b', 'a%2Fb'],
    ['.', '%2E'],
    ['..', '%2E%2E'],
    ['v1.2', 'v1.2'],
  ])('%j → %j', (text, segment) => {
    expect(keySegment(text)).toBe(segment);
    expect(() => parseBeadsKey(boundsKey(text))).not.toThrow();
  });
});

describe('keys', () => {
  it('puts bounds per task type and runs per root', () => {
    expect(boundsKey('objective')).toBe('system/bounds/objective');
    expect(runKeys('r1')).toEqual({ run: 'system/runs/r1', history: 'history/runs/r1' });
  });
});
