import type { RunNode } from '@tierflow/runtime';
import { createLogUpdate } from 'log-update';
import { renderTree, type RenderOptions } from './render-tree.js';

/** How often a live view reads the tree again. */
export const LIVE_INTERVAL_MS = 500;

/** What the command showing the live view is doing: `tierflow watch` watches, `enqueue --wait` waits. */
export type LiveDoing = 'watching' | 'waiting';

/** A run's tree drawn in place on a terminal. */
export interface LiveTree {
  /** Draws `tree` over the previous drawing, with `notes` (no worker serves it, say) below. */
  draw(tree: RunNode, notes?: readonly string[]): void;
  /** Leaves the last drawing on screen; what is written next goes below it. */
  done(): void;
}

/**
 * The live view of `tierflow watch` and `tierflow enqueue --wait`: a heading over the tree, each
 * node with its elapsed time, redrawn in place (log-update) on `terminal`.
 */
export function liveTree(terminal: NodeJS.WriteStream, doing: LiveDoing, now: () => number = Date.now, options: RenderOptions = {}): LiveTree {
  // The cursor stays visible: a command stopped with Ctrl-C must not leave the terminal without one.
  const live = createLogUpdate(terminal, { showCursor: true });
  const started = now();
  return {
    draw: (tree, notes = []) => {
      const at = now();
      live(`${liveHeading(tree, doing, at - started)}\n${renderTree(tree, at, options)}${notes.map((note) => `${note}\n`).join('')}`);
    },
    done: () => live.done(),
  };
}

/** `run <id>  running  (watching for 3 s; Ctrl-C stops watching, not the run)`. Pure. */
export function liveHeading(tree: RunNode, doing: LiveDoing, elapsedMs: number): string {
  return `run ${tree.id}  ${tree.status}  (${doing} for ${(elapsedMs / 1000).toFixed(0)} s; Ctrl-C stops ${doing}, not the run)`;
}
