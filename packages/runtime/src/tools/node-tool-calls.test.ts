import { uniquePrefix, waitFor } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { describe, expect, it } from 'vitest';
import { readAuditTrail } from '../audit/audit-read.js';
import { AuditTrail } from '../audit/audit-trail.js';
import { UsageMeters } from '../budget/usage-meter.js';
import type { RecordMode } from '../config/record-mode.js';
import type { ToolCall } from '../policy/tool-calls.js';
import { readRecording } from '../recording/read-recording.js';
import { RunRecorder } from '../recording/run-recorder.js';
import { controlKeys } from '../redis/keys.js';
import { toolCallHash } from '../recording/run-recorder.js';
import type { ReplayMode } from '../rerun/rerun-spec.js';
import { nodeToolCalls } from './node-tool-calls.js';

const log = { info: () => undefined, warn: () => undefined };
const call: ToolCall = {
  name: 'read_file',
  call_id: 'call_1',
  caller: 'fleet:helper',
  arguments: { path: 'secret.txt' },
  result: 'the secret',
  end: 'ok',
  error: null,
  started_at: 1,
  latency_ms: 5,
};

describe('a node’s tool calls', () => {
  const db = usePrivateRedis();

  function calls(mode: RecordMode, boundaries: Record<string, string[]> | null = null, replay: ReplayMode = 'off') {
    const prefix = uniquePrefix('tools');
    const keys = controlKeys(prefix);
    const recorder = new RunRecorder({ redis: db.redis, prefix, tier: 'SPECIALIZED_FLEET', mode, ttlMs: 60_000, log, worker: 'h:1' });
    const audit = new AuditTrail(db.redis, prefix, 'SPECIALIZED_FLEET', 60_000, log);
    const usage = new UsageMeters({ redis: db.redis, keys, ttlMs: 60_000, log }).for('root');
    const replayKey = keys.rerun('root').replay;
    return { prefix, keys, replayKey, tools: nodeToolCalls({ boundaries, usage, recorder, audit, replay: { mode: replay, redis: db.redis, key: replayKey } }, 'root', 'root.0-0.0-0.0-0') };
  }

  it('refuses a tool outside the caller’s boundaries before counting it, and counts the calls it admits', async () => {
    const { keys, tools } = calls('full', { 'fleet:helper': ['tool:read_*'] });
    expect(await tools.admit('fleet:helper', 'rm')).toEqual({ ok: false, reason: 'fleet:helper may not hand work to tool:rm: outside its collaboration boundaries' });
    expect(await tools.admit('fleet:helper', 'read_file')).toEqual({ ok: true });
    expect(await tools.admit('fleet:other', 'rm')).toEqual({ ok: true });
    expect(await db.redis.hget(keys.budget('root'), 'tool_calls')).toBe('2');
  });

  it('records each call on the run’s recording and its audit trail, the arguments there only when recording in full', async () => {
    for (const mode of ['full', 'metadata'] as const) {
      const { prefix, tools } = calls(mode);
      tools.record(call);
      const trail = await waitFor(async () => ((await readAuditTrail(db.redis, prefix, 'root')).length > 0 ? readAuditTrail(db.redis, prefix, 'root') : undefined), { timeoutMs: 5_000 });
      expect(trail[0]).toMatchObject({ kind: 'tool', from: 'SPECIALIZED_FLEET', to: 'tool:read_file', id: 'call_1', correlation_id: 'root.0-0.0-0.0-0', status: 'ok', detail: 'read_file: ok' });
      const data = trail[0]?.data ?? {};
      expect(data).toMatchObject({ tool: 'read_file', caller: 'fleet:helper', result_bytes: 10, duration_ms: 5 });
      if (mode === 'full') {
        expect(data.arguments).toBe('{"path":"secret.txt"}');
      } else {
        expect(data.arguments_sha256).toMatch(/^[0-9a-f]{64}$/);
        expect(JSON.stringify(trail)).not.toContain('secret');
      }
      const recording = await readRecording(db.redis, prefix, 'root');
      const [tool] = recording.nodes.get('root.0-0.0-0.0-0')?.tools ?? [];
      expect(tool).toMatchObject({ name: 'read_file', end: 'ok', result_bytes: 10 });
      if (mode === 'metadata') expect(JSON.stringify(tool)).not.toContain('secret');
    }
  });

  it('answers a replayed rerun’s call from the recording, misses loosely or strictly, and replays nothing when not replaying', async () => {
    const recorded = JSON.stringify({ content: 'a: found', isError: false });
    for (const mode of ['off', 'loose', 'strict'] as const) {
      const { replayKey, tools } = calls('full', null, mode);
      await db.redis.hset(replayKey, toolCallHash('look_up', { word: 'a' }), recorded);
      expect(await tools.replay!('look_up', { word: 'a' })).toEqual(mode === 'off' ? null : { content: 'a: found', isError: false });
      if (mode === 'strict') await expect(tools.replay!('look_up', { word: 'z' })).rejects.toThrow(/^replay_miss: no recorded call of look_up/);
      else expect(await tools.replay!('look_up', { word: 'z' })).toBeNull();
    }
  });
});
