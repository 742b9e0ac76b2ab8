import { runNode } from '@tierflow/runtime/testing';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { liveHeading, liveTree } from './live-tree.js';

const STARTED = Date.parse('2026-11-25T12:00:00.000Z');

/** A terminal 200 columns wide that keeps what is written to it, one entry a write. */
function fakeTerminal(): { stream: NodeJS.WriteStream; writes: string[] } {
  const writes: string[] = [];
  const stream = { isTTY: true, columns: 200, rows: 30, write: (text: string) => writes.push(text) > 0 };
  return { stream: stream as unknown as NodeJS.WriteStream, writes };
}

/** Whether `text` moves the cursor up (CSI n A): a redraw over what is on screen. */
const movesUp = (text: string): boolean =>
  text
    .split('\u001B[')
    .slice(1)
    .some((sequence) => /^\d+A/.test(sequence));

describe('liveHeading', () => {
  it('says whose run, its status, and what the command has been doing for how long', () => {
    const root = runNode('r', { tier: 'PROGRESS_MONITOR', status: 'running' });
    expect(liveHeading(root, 'watching', 2_600)).toBe('run r  running  (watching for 3 s; Ctrl-C stops watching, not the run)');
    expect(liveHeading(root, 'waiting', 0)).toBe('run r  running  (waiting for 0 s; Ctrl-C stops waiting, not the run)');
  });
});

describe('liveTree', () => {
  it('draws the heading over the tree with elapsed times, redraws it in place, and leaves it on done', () => {
    const { stream, writes } = fakeTerminal();
    const clock = { now: STARTED };
    const live = liveTree(stream, 'waiting', () => clock.now);
    const leaf = runNode('r.0-0', { status: 'running', source: 'queue', confidence: null, started_at: new Date(STARTED).toISOString() });
    const root = runNode('r', { tier: 'PROGRESS_MONITOR', task_type: 'objective', specialist: null, status: 'running', source: 'queue', confidence: null, children: [leaf] });

    clock.now += 1_200;
    live.draw(root);
    expect(stripVTControlCharacters(writes.join(''))).toBe(
      ['run r  running  (waiting for 1 s; Ctrl-C stops waiting, not the run)', 'monitor     r  objective  running', '└─ fleet       r.0-0  general  sim  running  1.2 s', ''].join('\n'),
    );

    // Only the lines that changed are rewritten, after moving the cursor up to them.
    clock.now += 1_000;
    live.draw(root);
    expect(writes).toHaveLength(2);
    expect(movesUp(writes[1]!)).toBe(true);
    expect(stripVTControlCharacters(writes[1]!)).toContain('waiting for 2 s');
    expect(stripVTControlCharacters(writes[1]!)).toContain('2.2 s');

    // Once done, the next drawing starts below the last one rather than over it.
    live.done();
    live.draw(root);
    expect(movesUp(writes.at(-1)!)).toBe(false);
  });
});
