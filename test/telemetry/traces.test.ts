import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ObjectiveFile } from '@tierflow/runtime';
import { waitFor } from '@tierflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';

const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'apps', 'cli', 'bin', 'tierflow.js');

// Two subtasks; the second fails once and succeeds on its retry.
const objective: ObjectiveFile = {
  objective: 'traced',
  task_data: {
    plan: {
      strategy: 'all_success',
      subtasks: [
        { objective: 'first', task_data: { sim: {} } },
        { objective: 'second', task_data: { sim: { fail_times: 1 } } },
      ],
    },
  },
};

// Per root: Monitor, Architect, Dispatcher each a first pass and an aggregate pass (6); one send
// each to the Architect and the Dispatcher and two to the Fleet (4); three Fleet attempts (3).
const SPANS_PER_ROOT = 13;

function tracedEnv(receiver: OtlpReceiver, protocol: string): NodeJS.ProcessEnv {
  return {
    TIERFLOW_LOG: 'silent',
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: protocol,
    OTEL_BSP_SCHEDULE_DELAY: '50',
  };
}

describe.each([
  ['http/json', 'json'],
  ['http/protobuf', 'protobuf'],
] as const)('traces of a run across four worker processes, over OTLP %s', (protocol, encoding) => {
  let receiver: OtlpReceiver;
  let deployment: Deployment;
  let spans: ReceivedSpan[];
  let rootId: string;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    deployment = await startDeployment(`traces-${encoding}`, tracedEnv(receiver, protocol));
    rootId = await deployment.client.enqueue(objective);
    await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 });
    spans = await waitFor(
      () => {
        const mine = receiver.spans.filter((span) => span.attributes['tierflow.root_id'] === rootId);
        return mine.length >= SPANS_PER_ROOT ? mine : null;
      },
      { timeoutMs: 15_000, description: `${SPANS_PER_ROOT} spans of the run` },
    );
  }, 60_000);

  afterAll(async () => {
    await deployment?.stop();
    await receiver?.close();
  });

  const byKind = (kind: ReceivedSpan['kind']): ReceivedSpan[] => spans.filter((span) => span.kind === kind);
  const producerOf = (messageId: unknown): ReceivedSpan | undefined => byKind('PRODUCER').find((span) => span.attributes['tierflow.message.id'] === messageId);

  it(`arrive ${encoding}-encoded, one trace for the whole run, from the four services`, () => {
    expect(spans).toHaveLength(SPANS_PER_ROOT);
    expect(new Set(spans.map((span) => span.encoding))).toEqual(new Set([encoding]));
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
    expect(new Set(spans.map((span) => span.serviceName))).toEqual(new Set(['tierflow-monitor', 'tierflow-architect', 'tierflow-dispatcher', 'tierflow-fleet']));
    for (const span of spans) expect(Object.keys(span.resource)).toEqual(expect.arrayContaining(['host.name', 'process.pid']));
  });

  it("each CONSUMER span's parent is its delegation's PRODUCER span", () => {
    const consumers = byKind('CONSUMER').filter((span) => span.attributes['tierflow.tier'] !== 'PROGRESS_MONITOR');
    expect(consumers.length).toBe(5);
    for (const consumer of consumers) {
      const producer = producerOf(consumer.attributes['tierflow.message.id']);
      expect(producer, `producer of ${String(consumer.attributes['tierflow.message.id'])}`).toBeDefined();
      expect(consumer.parentSpanId).toBe(producer!.spanId);
    }
  });

  it('the aggregate step links the span of every child', () => {
    const aggregate = spans.find((span) => span.name === 'dispatcher aggregate');
    const children = byKind('PRODUCER').filter((span) => span.attributes['tierflow.tier'] === 'SPECIALIZED_FLEET');
    expect(children).toHaveLength(2);
    expect(aggregate?.links.map((link) => link.spanId).sort()).toEqual(children.map((span) => span.spanId).sort());
  });

  it('every span carries the correlation attributes and the messaging conventions', () => {
    for (const span of spans) {
      expect(span.attributes).toMatchObject({ 'tierflow.root_id': rootId, 'messaging.system': 'bullmq' });
      for (const key of ['tierflow.message.id', 'tierflow.correlation_id', 'tierflow.tier', 'messaging.destination.name', 'messaging.operation.type']) {
        expect(span.attributes[key], `${span.name}: ${key}`).toBeTruthy();
      }
    }
    const outcomes = spans.filter((span) => span.kind === 'CONSUMER' && span.attributes['tierflow.status'] !== undefined);
    expect(outcomes.length).toBeGreaterThan(0);
    for (const span of outcomes) expect(typeof span.attributes['tierflow.confidence']).toBe('number');
  });

  it('a retried subtask shows one span per attempt, the failed one with a retry event', () => {
    const second = producerOf(
      byKind('PRODUCER').find((span) => span.attributes['tierflow.tier'] === 'SPECIALIZED_FLEET' && String(span.attributes['tierflow.message.id']).endsWith('-1'))?.attributes['tierflow.message.id'],
    );
    const attempts = byKind('CONSUMER')
      .filter((span) => span.attributes['tierflow.message.id'] === second?.attributes['tierflow.message.id'])
      .sort((a, b) => Number(a.attributes['tierflow.attempt']) - Number(b.attributes['tierflow.attempt']));
    expect(attempts.map((span) => [span.attributes['tierflow.attempt'], span.status])).toEqual([
      [1, 'ERROR'],
      [2, 'OK'],
    ]);
    expect(attempts[0]!.events.map((event) => event.name)).toContain('retry');
  });

  it('tierflow trace finds the run by its root id and prints its Jaeger URL', async () => {
    expect(await deployment.client.traceId(rootId)).toBe(spans[0]!.traceId);
    const cli = spawnSync(process.execPath, [BIN, 'trace', rootId], {
      env: { ...process.env, REDIS_URL: deployment.redis.url, TIERFLOW_PREFIX: deployment.runtime.prefix, JAEGER_URL: 'http://jaeger.example:16686/' },
      encoding: 'utf8',
    });
    expect(cli.status).toBe(0);
    expect(cli.stdout).toBe(`${spans[0]!.traceId}\nhttp://jaeger.example:16686/trace/${spans[0]!.traceId}\n`);
  });
});

describe('with no collector listening', () => {
  it('the run completes and each process warns once, not once per span', async () => {
    const receiver = await startOtlpReceiver();
    const closed = receiver.url;
    await receiver.close(); // nothing listens there any more
    const deployment = await startDeployment('traces-nobody', { ...tracedEnv(receiver, 'http/protobuf'), OTEL_EXPORTER_OTLP_ENDPOINT: closed, OTEL_EXPORTER_OTLP_TIMEOUT: '1000' });
    try {
      for (let i = 0; i < 5; i++) {
        const rootId = await deployment.client.enqueue(objective);
        expect((await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 })).payload.status).toBe('success');
      }
    } finally {
      await deployment.stop();
    }
    const warnings = deployment.logs.filter((line) => line.includes('telemetry:'));
    const perTier = new Map<string, number>();
    for (const line of warnings) perTier.set(line.split(' |')[0]!, (perTier.get(line.split(' |')[0]!) ?? 0) + 1);
    expect(Math.max(0, ...perTier.values())).toBeLessThanOrEqual(1);
    expect(warnings.length).toBeGreaterThan(0);
  }, 60_000);
});

describe('with OTEL_TRACES_EXPORTER=none', () => {
  it('sends nothing, even when the workers flush on shutdown', async () => {
    const receiver = await startOtlpReceiver();
    const deployment = await startDeployment('traces-none', { ...tracedEnv(receiver, 'http/json'), OTEL_TRACES_EXPORTER: 'none' });
    try {
      const rootId = await deployment.client.enqueue(objective);
      expect((await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 })).payload.status).toBe('success');
    } finally {
      await deployment.stop();
      await receiver.close();
    }
    expect(receiver.requests).toBe(0);
  }, 60_000);
});
