import { ERROR_TYPES, TierflowError } from '@tierflow/protocol';
import type { RedisClient } from '@tierflow/beads';
import { z } from 'zod';
import type { ModelAnswer, ModelCalls } from '../policy/model-calls.js';
import { readStoredRecord } from '../redis/stored-record.js';
import type { ReplayMode } from '../rerun/rerun-spec.js';
import { requestHash, type RunRecorder } from './run-recorder.js';

/** A recorded answer, as a rerun's replay hash keeps it. */
export const replayAnswerSchema = z.object({ content: z.string(), model: z.string(), finish_reason: z.string().nullable().default(null) });

/** Where a node's calls are recorded, and where a replay finds its answers. */
export interface NodeCallsDeps {
  readonly recorder: RunRecorder;
  readonly redis: RedisClient;
  /** The rerun's replay hash (`rerunKeys(…).replay`): recorded answers by request hash. */
  readonly replayKey: string;
}

/**
 * One node's {@link ModelCalls}: each call recorded in its run's recording, and under a replay
 * answered from the rerun's replay hash, by the hash of its model, messages and parameters. A
 * recorded answer that does not parse is no answer.
 */
export function nodeCalls(deps: NodeCallsDeps, rootId: string, node: string, replay: ReplayMode): ModelCalls {
  return {
    replay: async (request) => {
      if (replay === 'off') return null;
      const text = await deps.redis.hget(deps.replayKey, requestHash(request));
      const read = text === null ? null : readStoredRecord(text, replayAnswerSchema, { what: 'a recorded answer' });
      if (read?.ok) return read.value satisfies ModelAnswer;
      if (replay === 'strict') {
        throw TierflowError.permanent(`replay_miss: no recorded call matches the ${request.model} call of ${node}`, { code: ERROR_TYPES.replayMiss });
      }
      return null;
    },
    record: (call) => deps.recorder.call(rootId, node, call),
  };
}
