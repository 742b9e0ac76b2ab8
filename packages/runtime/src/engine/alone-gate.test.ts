import { describe, expect, it } from 'vitest';
import { AloneGate } from './alone-gate.js';

/** Enters, and records when it is in. */
function enter(gate: AloneGate, alone: boolean, log: string[], name: string): Promise<void> {
  const waiting = gate.enter(alone);
  if (waiting === null) {
    log.push(name);
    return Promise.resolve();
  }
  return waiting.then(() => void log.push(name));
}

describe('the alone gate', () => {
  it('lets shared jobs in together, at once', () => {
    const gate = new AloneGate();
    expect(gate.enter(false)).toBeNull();
    expect(gate.enter(false)).toBeNull();
    expect(gate.inside).toBe(2);
  });

  it('lets a job run alone only once the shared ones have left, and holds back later ones until it leaves', async () => {
    const gate = new AloneGate();
    const log: string[] = [];
    await enter(gate, false, log, 'a');
    await enter(gate, false, log, 'b');
    const alone = enter(gate, true, log, 'alone');
    const later = enter(gate, false, log, 'later');
    expect(log).toEqual(['a', 'b']);
    gate.leave(false);
    await Promise.resolve();
    expect(log).toEqual(['a', 'b']);
    gate.leave(false);
    await alone;
    expect(log).toEqual(['a', 'b', 'alone']);
    expect(gate.inside).toBe(1);
    gate.leave(true);
    await later;
    expect(log).toEqual(['a', 'b', 'alone', 'later']);
  });

  it('runs jobs that wait to run alone one at a time, in the order they came', async () => {
    const gate = new AloneGate();
    const log: string[] = [];
    await enter(gate, true, log, 'first');
    const second = enter(gate, true, log, 'second');
    const shared = [enter(gate, false, log, 'x'), enter(gate, false, log, 'y')];
    const third = enter(gate, true, log, 'third');
    gate.leave(true);
    await second;
    expect(log).toEqual(['first', 'second']);
    gate.leave(true);
    await Promise.all(shared);
    // The shared ones come in together; the next one alone waits for both.
    expect(log).toEqual(['first', 'second', 'x', 'y']);
    expect(gate.inside).toBe(2);
    gate.leave(false);
    gate.leave(false);
    await third;
    expect(log).toEqual(['first', 'second', 'x', 'y', 'third']);
  });
});
