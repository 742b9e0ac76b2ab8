import { checkBoundary, type Boundaries } from '@tierflow/core';
import type { RedisClient } from '@tierflow/beads';
import { ERROR_TYPES, TierflowError } from '@tierflow/protocol';
import { z } from 'zod';
import type { Context } from '@opentelemetry/api';
import type { AuditTrail } from '../audit/audit-trail.js';
import { observeToolCall } from '../observability/gen-ai/tool-call-span.js';
import { UNOBSERVED_TOOL_CALL, type NodeToolCalls } from '../policy/tool-calls.js';
import type { UsageMeter } from '../policy/usage-meter.js';
import { readStoredRecord } from '../redis/stored-record.js';
import { toolCallHash, type RunRecorder } from '../recording/run-recorder.js';
import type { ReplayMode } from '../rerun/rerun-spec.js';

/** What a node's tool calls are held to and written to. */
export interface NodeToolCallsDeps {
  /** The deployment's collaboration boundaries (`fleet:<specialist>` → `tool:<name>`); null: none. */
  readonly boundaries: Boundaries | null;
  /** The run's meter: each call is counted against `max_tool_calls`. */
  readonly usage: UsageMeter;
  readonly recorder: RunRecorder;
  readonly audit: AuditTrail;
  /** The pass's span context, each call's span's parent; left out, calls are not traced. */
  readonly trace?: Context;
  /** A rerun that replays its recording: the rerun's replay hash (`rerunKeys(…).replay`), where recorded results are found by {@link toolCallHash}. */
  readonly replay?: { readonly mode: ReplayMode; readonly redis: RedisClient; readonly key: string };
}

const recordedResultSchema = z.object({ content: z.string(), isError: z.boolean() });

/**
 * One node's {@link NodeToolCalls}: a call outside its caller's boundaries is refused before it
 * is counted; each call made is counted in the run's budget hash; each, however it ended, goes on
 * the run's recording and its audit trail (arguments there only under TIERFLOW_RECORD=full).
 */
export function nodeToolCalls(deps: NodeToolCallsDeps, rootId: string, node: string): NodeToolCalls {
  return {
    admit: async (caller, name) => {
      const verdict = checkBoundary(deps.boundaries, caller, `tool:${name}`);
      if (!verdict.ok) return { ok: false, reason: verdict.reason };
      await deps.usage.toolCall?.();
      return { ok: true };
    },
    observe: (start) => (deps.trace ? observeToolCall(deps.trace, start) : UNOBSERVED_TOOL_CALL),
    record: (call) => {
      deps.recorder.tool(rootId, node, call);
      deps.audit.toolCalled(rootId, node, call, deps.recorder.mode === 'full');
    },
    replay: async (name, args) => {
      const replay = deps.replay;
      if (!replay || replay.mode === 'off') return null;
      const text = await replay.redis.hget(replay.key, toolCallHash(name, args));
      const read = text === null ? null : readStoredRecord(text, recordedResultSchema, { what: 'a recorded tool result' });
      if (read?.ok) return read.value;
      if (replay.mode === 'strict') throw TierflowError.permanent(`replay_miss: no recorded call of ${name} with these arguments in ${node}`, { code: ERROR_TYPES.replayMiss });
      return null;
    },
  };
}
