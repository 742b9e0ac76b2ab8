import { DEFAULT_PRIORITY, ERROR_TYPES, TierflowError } from '@tierflow/protocol';
import type { RedisClient } from '@tierflow/beads';
import { z } from 'zod';
import type { Context } from '@opentelemetry/api';
import type { NodeToolCalls } from '../policy/tool-calls.js';
import { UNOBSERVED_CALL, type ModelAnswer, type ModelCalls, type ModelLimiter, type ModelParking, type ModelRequest } from '../policy/model-calls.js';
import type { GenAiOptions } from '../observability/gen-ai/conventions.js';
import { observeModelCall } from '../observability/gen-ai/model-call-span.js';
import { readStoredRecord } from '../redis/stored-record.js';
import type { ReplayMode } from '../rerun/rerun-spec.js';
import { requestHash, type RunRecorder } from './run-recorder.js';

/** A recorded answer, as a rerun's replay hash keeps it. */
export const replayAnswerSchema = z.object({
  content: z.string(),
  model: z.string(),
  finish_reason: z.string().nullable().default(null),
  tool_calls: z.array(z.object({ id: z.string(), name: z.string(), arguments: z.string() })).optional(),
});

/** Where a node's calls are recorded, and where a replay finds its answers. */
export interface NodeCallsDeps {
  readonly recorder: RunRecorder;
  readonly redis: RedisClient;
  /** The rerun's replay hash (`rerunKeys(…).replay`): recorded answers by request hash. */
  readonly replayKey: string;
  /** The pass's span context, the parent of each call's span, and the GenAI conventions they follow; left out, calls are not observed. */
  readonly trace?: { readonly parent: Context; readonly genAi: GenAiOptions };
  /** The deployment's shared model limits, handed on to the calls; none when left out. */
  readonly limiter?: ModelLimiter;
  /** The delegation's priority (0, critical, to 4): its calls take their turn at a limited model by it, then by run. */
  readonly priority?: number;
  /** The id a long wait for the pass's first call parks under (PassInput.parkAs); null or left out, no call parks. */
  readonly parkAs?: string | null;
  /** The node's tool calls, handed on as they are (tools/node-tool-calls.ts). */
  readonly tools?: NodeToolCalls;
}

/**
 * A rerun's request as the original run made it: a prompt may name its own run (a Beads key of
 * the run's shared context holds the root id), which the original named by its own id. Root ids
 * are UUIDs, so no other text is taken for one.
 */
export function rebased(request: ModelRequest, rootId: string, original: string): ModelRequest {
  if (rootId === original) return request;
  const swap = (value: unknown): unknown => JSON.parse(JSON.stringify(value).replaceAll(rootId, original)) as unknown;
  return { ...request, messages: swap(request.messages) as unknown[], params: swap(request.params) as Record<string, unknown> };
}

/** The most model calls one pass records: a node's recording stays bounded however many calls its work makes (a tool loop, say). */
export const MAX_RECORDED_CALLS = 100;

/** A pass's {@link ModelCalls}, which also tells how many of its calls went unrecorded past {@link MAX_RECORDED_CALLS}. */
export interface NodeCalls extends ModelCalls {
  unrecorded(): number;
}

/**
 * One node's {@link ModelCalls} for one pass: each call recorded in its run's recording (the first
 * {@link MAX_RECORDED_CALLS}; the rest counted, for the pass's entry), and under a replay answered
 * from the rerun's replay hash, by the hash of its model, messages and parameters, with the run's
 * root id in them read as `original`'s (see {@link rebased}). A recorded answer that does not
 * parse is no answer.
 */
export function nodeCalls(deps: NodeCallsDeps, rootId: string, node: string, replay: ReplayMode, original: string | null = null): NodeCalls {
  let recorded = 0;
  let dropped = 0;
  return {
    replay: async (request) => {
      if (replay === 'off') return null;
      const text = await deps.redis.hget(deps.replayKey, requestHash(original === null ? request : rebased(request, rootId, original)));
      const read = text === null ? null : readStoredRecord(text, replayAnswerSchema, { what: 'a recorded answer' });
      if (read?.ok) return read.value satisfies ModelAnswer;
      if (replay === 'strict') {
        throw TierflowError.permanent(`replay_miss: no recorded call matches the ${request.model} call of ${node}`, { code: ERROR_TYPES.replayMiss });
      }
      return null;
    },
    record: (call) => {
      if (recorded >= MAX_RECORDED_CALLS) {
        dropped++;
        return;
      }
      recorded++;
      deps.recorder.call(rootId, node, call);
    },
    observe: (start) => (deps.trace ? observeModelCall(deps.trace.parent, deps.trace.genAi, start) : UNOBSERVED_CALL),
    unrecorded: () => dropped,
    ...(deps.limiter ? { limiter: deps.limiter, waiter: { run: rootId, priority: deps.priority ?? DEFAULT_PRIORITY } } : {}),
    ...(deps.limiter && deps.parkAs ? { parking: parking(deps.parkAs) } : {}),
    ...(deps.tools ? { tools: deps.tools } : {}),
  };
}

/** Parking for a pass's calls: open until the first of them is granted. */
function parking(id: string): ModelParking {
  let open = true;
  return {
    id,
    available: () => open,
    granted: () => {
      open = false;
    },
  };
}
