import { z } from 'zod';
import type { RunNode } from '../audit/run-tree-merge.js';
import type { RunRecording } from './node-record.js';
import { WAIT_KINDS } from './node-view-schema.js';

/** What a stretch of a node's life was: a pass running, or one of its waits. */
export const SPAN_KINDS = ['running', ...WAIT_KINDS] as const;

export const timelineSpanSchema = z.object({ kind: z.enum(SPAN_KINDS), from: z.number(), to: z.number().nullable().meta({ description: 'null: still going on' }) });

/**
 * A run's timeline (`GET /api/runs/{root}/timeline`): each node of its tree, depth first, with the
 * stretches it spent queued, running, waiting for its children, for a person or for a retry, on
 * one time axis (ms since the epoch). Without a recording a node has one `running` span, from its
 * tree's start and end times.
 */
export const runTimelineSchema = z
  .object({
    root_id: z.string(),
    recorded: z.boolean().meta({ description: 'Whether the run was recorded; without, spans come from the tree’s start and end times.' }),
    start: z.number().nullable(),
    end: z.number().nullable().meta({ description: 'The last end of a span; null while one goes on, or with none.' }),
    nodes: z.array(
      z.object({
        id: z.string(),
        parent: z.string().nullable(),
        depth: z.number(),
        tier: z.string(),
        task_type: z.string(),
        status: z.string(),
        spans: z.array(timelineSpanSchema),
      }),
    ),
  })
  .meta({ title: 'RunTimeline' });

export type RunTimeline = z.output<typeof runTimelineSchema>;
export type TimelineSpan = z.output<typeof timelineSpanSchema>;

/** The run's timeline from its tree and recording (pure). */
export function runTimeline(tree: RunNode, recording: RunRecording): RunTimeline {
  const nodes: RunTimeline['nodes'] = [];
  const walk = (node: RunNode, parent: string | null, depth: number): void => {
    nodes.push({ id: node.id, parent, depth, tier: node.tier, task_type: node.task_type, status: node.status, spans: spansOf(node, recording) });
    for (const child of node.children) walk(child, node.id, depth + 1);
  };
  walk(tree, null, 0);
  const spans = nodes.flatMap((node) => node.spans);
  const start = spans.length > 0 ? Math.min(...spans.map((span) => span.from)) : null;
  const end = spans.length === 0 || spans.some((span) => span.to === null) ? null : Math.max(...spans.map((span) => span.to ?? span.from));
  return { root_id: tree.id, recorded: recording.nodes.size > 0, start, end, nodes };
}

function spansOf(node: RunNode, recording: RunRecording): TimelineSpan[] {
  const record = recording.nodes.get(node.id);
  if (record && (record.passes.length > 0 || record.waits.length > 0)) {
    const spans: TimelineSpan[] = [...record.passes.map((pass) => ({ kind: 'running' as const, from: pass.started_at, to: pass.ended_at })), ...record.waits.map((wait) => ({ ...wait }))];
    return spans.sort((a, b) => a.from - b.from);
  }
  const from = node.started_at === null ? Number.NaN : Date.parse(node.started_at);
  if (!Number.isFinite(from)) return [];
  const to = node.finished_at === null ? null : Date.parse(node.finished_at);
  return [{ kind: 'running', from, to: to !== null && Number.isFinite(to) ? to : null }];
}
