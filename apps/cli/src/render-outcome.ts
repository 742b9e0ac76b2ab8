import { isZeroUsage, usageOf } from '@tierflow/core';
import type { OutcomeMessage } from '@tierflow/protocol';
import { usageText } from './render-tree.js';

/**
 * A root's outcome as a person reads it at the end of `enqueue --wait`: its status, confidence
 * and time, the summary, the error when there is one, what its model calls used, and where the
 * full message is. A few lines, where the message's JSON is a hundred. Pure.
 */
export function renderOutcome(rootId: string, outcome: OutcomeMessage): string {
  const payload = outcome.payload;
  const usage = usageOf(payload.resources_used);
  const rows: [string, string][] = [
    ['outcome', `${payload.status}  confidence ${payload.confidence.toFixed(2)}  took ${(payload.execution_time_ms / 1000).toFixed(1)} s`],
    ['summary', oneLine(payload.summary) || '-'],
    ...(payload.error_type === null ? [] : [['error', [payload.error_type, payload.error_detail].filter((part) => part).join(': ')] as [string, string]]),
    ...(isZeroUsage(usage) ? [] : [['usage', usageText(usage)] as [string, string]]),
  ];
  const lines = rows.map(([label, value]) => `${label.padEnd(7)}  ${value}`);
  return `${[...lines, `tierflow result ${rootId} prints the outcome message as JSON`].join('\n')}\n`;
}

/** A summary over several lines, or a very long one, kept to one line a terminal shows whole. */
function oneLine(text: string): string {
  const flat = text.replaceAll(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
}
