import { ERROR_TYPES } from '@tierflow/protocol';
import { redisClient, startRedisServer, uniquePrefix, type RedisServer } from '@tierflow/testing';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOutcome } from '../messages/messages.js';
import type { ModelRequest } from '../policy/model-calls.js';
import { MAX_RECORDED_CALLS, nodeCalls } from '../recording/node-calls.js';
import { readRecording } from '../recording/read-recording.js';
import { requestHash, RunRecorder } from '../recording/run-recorder.js';
import { rerunKeys } from '../redis/keys.js';
import { signRecord } from '../security/signing.js';
import { memoryKeySet } from '../testing/keys.js';
import { nodeRerun } from './node-rerun.js';
import { readReused } from './reuse.js';
import { rerunSpecSchema } from './rerun-spec.js';

const log = { info: () => undefined, warn: () => undefined };
const request: ModelRequest = { endpoint: 'http://127.0.0.1:1/v1', model: 'm', messages: [{ role: 'user', content: 'hello' }], params: { temperature: 0 } };
const answer = { content: 'recorded', model: 'm', finish_reason: 'stop' };

describe('replaying recorded model calls and reusing recorded outcomes, against Redis', () => {
  let server: RedisServer;
  let redis: Redis;

  beforeAll(async () => {
    server = await startRedisServer();
    redis = redisClient(server.url);
  });

  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
  });

  function recorder(prefix: string, mode: 'full' | 'none' = 'full'): RunRecorder {
    return new RunRecorder({ redis, prefix, tier: 'SPECIALIZED_FLEET', mode, ttlMs: 60_000, log, worker: 'host:1' });
  }

  it('answers a call whose request was recorded, by its hash, whatever the order of its fields', async () => {
    const prefix = uniquePrefix('replay');
    const keys = rerunKeys(prefix, 'new');
    await redis.hset(keys.replay, requestHash({ params: { temperature: 0 }, messages: request.messages, model: 'm' }), JSON.stringify(answer));
    const deps = { recorder: recorder(prefix), redis, replayKey: keys.replay };
    expect(await nodeCalls(deps, 'new', 'new.0-0', 'loose').replay(request)).toEqual(answer);
    expect(await nodeCalls(deps, 'new', 'new.0-0', 'strict').replay(request)).toEqual(answer);
    // Off: no replay, whatever is recorded.
    expect(await nodeCalls(deps, 'new', 'new.0-0', 'off').replay(request)).toBeNull();
  });

  it('sends a call nothing matches to the model, or under strict fails it replay_miss, naming the node', async () => {
    const prefix = uniquePrefix('replay-miss');
    const keys = rerunKeys(prefix, 'new');
    await redis.hset(keys.replay, requestHash(request), JSON.stringify(answer));
    // An edited prompt is another request; a recorded answer out of shape is no answer.
    const edited = { ...request, messages: [{ role: 'user', content: 'hello again' }] };
    await redis.hset(keys.replay, requestHash({ ...request, model: 'other' }), '{"content":7}');
    const deps = { recorder: recorder(prefix), redis, replayKey: keys.replay };
    expect(await nodeCalls(deps, 'new', 'new.0-0', 'loose').replay(edited)).toBeNull();
    await expect(nodeCalls(deps, 'new', 'new.0-0', 'strict').replay(edited)).rejects.toMatchObject({ code: ERROR_TYPES.replayMiss, message: expect.stringContaining('new.0-0') as unknown });
    await expect(nodeCalls(deps, 'new', 'new.0-0', 'strict').replay({ ...request, model: 'other' })).rejects.toMatchObject({ code: ERROR_TYPES.replayMiss });
  });

  it('records each call under its node, and nothing at all with recording off', async () => {
    const prefix = uniquePrefix('calls');
    const call = {
      purpose: 'specialist',
      request,
      answer,
      error: null,
      usage: { tokens_in: 1, tokens_out: 2, cost_usd: 0, llm_calls: 1 },
      estimated: false,
      started_at: 1,
      latency_ms: 2,
      tries: 1,
      waits_ms: [],
      replayed: false,
    } as const;
    nodeCalls({ recorder: recorder(prefix), redis, replayKey: 'unused' }, 'run', 'run.0-0', 'off').record(call);
    nodeCalls({ recorder: recorder(prefix, 'none'), redis, replayKey: 'unused' }, 'quiet', 'quiet.0-0', 'off').record(call);
    await redis.ping();
    const recorded = (await readRecording(redis, prefix, 'run')).nodes.get('run.0-0');
    expect(recorded?.calls).toEqual([expect.objectContaining({ model: 'm', request_hash: requestHash(request), answer, request: { messages: request.messages, params: request.params } })]);
    expect(await redis.keys(`${prefix}:record:quiet*`)).toEqual([]);
  });

  it('records the first calls of a pass, and counts those past the most a pass records', async () => {
    const prefix = uniquePrefix('many-calls');
    const call = {
      purpose: 'specialist',
      request,
      answer,
      error: null,
      usage: { tokens_in: 1, tokens_out: 1, cost_usd: 0, llm_calls: 1 },
      estimated: false,
      started_at: 1,
      latency_ms: 1,
      tries: 1,
      waits_ms: [],
      replayed: false,
    } as const;
    const calls = nodeCalls({ recorder: recorder(prefix), redis, replayKey: 'unused' }, 'run', 'run.0-0', 'off');
    for (let index = 0; index < MAX_RECORDED_CALLS + 5; index++) calls.record(call);
    expect(calls.unrecorded()).toBe(5);
    await redis.ping();
    expect((await readRecording(redis, prefix, 'run')).nodes.get('run.0-0')?.calls).toHaveLength(MAX_RECORDED_CALLS);
  });

  it('reuses the original node’s outcome, charging nothing, and only an outcome of that node by its tier, signed where the deployment signs', async () => {
    const prefix = uniquePrefix('reuse');
    const keys = rerunKeys(prefix, 'new');
    const rerun = nodeRerun(rerunSpecSchema.parse({ of: 'old', from: 'old.0-0.0-1' }), 'new.0-0.0-0', 'new')!;
    expect(rerun.role).toBe('reuse');
    const original = buildOutcome(
      'SPECIALIZED_FLEET',
      'old.0-0.0-0',
      { status: 'success', summary: 'done before', confidence: 0.9, resources_used: { usage: { tokens_in: 10, tokens_out: 5, cost_usd: 0.1, llm_calls: 1 }, specialist: 'w' } },
      5,
      Date.now(),
    );
    const read = () => readReused(redis, keys.reuse, rerun, 'SPECIALIZED_FLEET', null, Date.now());
    expect(await read()).toBeNull();
    await redis.hset(keys.reuse, '.0-0.0-0', JSON.stringify(original));
    expect(await read()).toEqual({
      from: 'old.0-0.0-0',
      draft: expect.objectContaining({
        status: 'success',
        summary: 'done before',
        confidence: 0.9,
        resources_used: { specialist: 'w', usage: { tokens_in: 0, tokens_out: 0, cost_usd: 0, llm_calls: 0 }, reused_from: 'old.0-0.0-0' },
      }) as unknown,
    });
    // Another node's outcome, or another tier's, is not this node's to reuse.
    await redis.hset(keys.reuse, '.0-0.0-0', JSON.stringify(buildOutcome('SPECIALIZED_FLEET', 'old.0-0.0-2', { status: 'success', summary: 's', confidence: 1 }, 1, Date.now())));
    expect(await read()).toBeNull();
    await redis.hset(keys.reuse, '.0-0.0-0', 'not json');
    expect(await read()).toBeNull();
    // Signed: only the Fleet's own signature on it holds.
    const keySet = memoryKeySet();
    await redis.hset(keys.reuse, '.0-0.0-0', JSON.stringify(signRecord(original, keySet.signer('fleet'))));
    expect(await readReused(redis, keys.reuse, rerun, 'SPECIALIZED_FLEET', keySet.signing, Date.now())).not.toBeNull();
    await redis.hset(keys.reuse, '.0-0.0-0', JSON.stringify(signRecord(original, keySet.signer('dispatcher'))));
    expect(await readReused(redis, keys.reuse, rerun, 'SPECIALIZED_FLEET', keySet.signing, Date.now())).toBeNull();
  });
});
