import type { TierSlug } from '@tierflow/protocol';
import type { ObjectiveFile } from '@tierflow/runtime';
import { waitFor } from '@tierflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tierflow } from '../security/tier-processes.js';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { startOtlpGrpcReceiver } from '../support/otlp-grpc-receiver.js';
import { startOtlpReceiver, tracingTo, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { serveDeployment } from '../support/served.js';

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

// The run whose traces are read: the same, its first subtask long enough to report progress (the
// sim reports every half second of a delay of a second or more; one update a second is kept).
const SLOW_MS = 2_000;
const tracedRun: ObjectiveFile = {
  ...objective,
  task_data: {
    plan: {
      strategy: 'all_success',
      subtasks: [
        { objective: 'first', task_data: { sim: { delay_ms: SLOW_MS } } },
        { objective: 'second', task_data: { sim: { fail_times: 1 } } },
      ],
    },
  },
};

// Per root: Monitor, Architect, Dispatcher each a first pass and an aggregate pass (6), and three
// Fleet attempts (3). A round sent is an event on the span of the pass that sent it.
const SPANS_PER_ROOT = 9;

function tracedEnv(receiver: Pick<OtlpReceiver, 'url'>, protocol: 'http/protobuf' | 'http/json'): NodeJS.ProcessEnv {
  return {
    TIERFLOW_LOG: 'silent',
    ...tracingTo(receiver, protocol),
    OTEL_BSP_SCHEDULE_DELAY: '50',
  };
}

/** Waits until the run's Monitor has marked its trace exported (what `tierflow trace` reads), then runs `tierflow trace`. */
async function traceCommand(deployment: Deployment, rootId: string, env: NodeJS.ProcessEnv = {}) {
  await waitFor(async () => (await deployment.client.runTrace(rootId))?.exported === true, { timeoutMs: 10_000, description: 'the run’s trace marked exported' });
  return tierflow(['trace', rootId], { REDIS_URL: deployment.redis.url, TIERFLOW_PREFIX: deployment.runtime.prefix, ...env });
}

// Over OTLP/HTTP, half the tiers encode JSON and half protobuf, so that one run's spans check both
// encodings (and that each process speaks the protocol it was told). gRPC has its own test below:
// its exporter is another one, and the Monitor's says when a trace was exported.
const ENCODINGS: Readonly<Record<TierSlug, 'http/json' | 'http/protobuf'>> = { monitor: 'http/json', architect: 'http/protobuf', dispatcher: 'http/json', fleet: 'http/protobuf' };

describe('traces of a run across four worker processes, over OTLP/HTTP in JSON and protobuf', () => {
  let receiver: OtlpReceiver;
  let deployment: Deployment;
  let spans: ReceivedSpan[];
  let rootId: string;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    const tierEnv = Object.fromEntries(Object.entries(ENCODINGS).map(([tier, protocol]) => [tier, tracedEnv(receiver, protocol)]));
    deployment = await startDeployment('traces', tracedEnv(receiver, 'http/protobuf'), { tierEnv });
    rootId = await deployment.client.enqueue(tracedRun);
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
  /** The send events on a span, each with the ids of the messages it sent (an array attribute, as the receiver gives it: JSON text). */
  const sendsOf = (span: ReceivedSpan) =>
    span.events.filter((event) => event.name.endsWith(' send')).map((event) => ({ ...event, ids: JSON.parse(String(event.attributes['tierflow.message.ids'])) as string[] }));
  /** The span of the pass that sent a message. */
  const senderOf = (messageId: unknown): ReceivedSpan | undefined => spans.find((span) => sendsOf(span).some((send) => send.ids.includes(String(messageId))));

  it('arrive each in the encoding its process was told, one trace for the whole run, from the four services', () => {
    expect(spans).toHaveLength(SPANS_PER_ROOT);
    for (const span of spans) expect(`http/${span.encoding}`, span.serviceName).toBe(ENCODINGS[span.serviceName.replace('tierflow-', '') as TierSlug]);
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
    expect(new Set(spans.map((span) => span.serviceName))).toEqual(new Set(['tierflow-monitor', 'tierflow-architect', 'tierflow-dispatcher', 'tierflow-fleet']));
    for (const span of spans) expect(Object.keys(span.resource)).toEqual(expect.arrayContaining(['host.name', 'process.pid']));
  });

  it("each CONSUMER span's parent is the span of the pass that sent its delegation", () => {
    const consumers = byKind('CONSUMER').filter((span) => span.attributes['tierflow.tier'] !== 'PROGRESS_MONITOR');
    expect(consumers.length).toBe(5);
    for (const consumer of consumers) {
      const sender = senderOf(consumer.attributes['tierflow.message.id']);
      expect(sender, `sender of ${String(consumer.attributes['tierflow.message.id'])}`).toBeDefined();
      expect(consumer.parentSpanId).toBe(sender!.spanId);
    }
    expect(byKind('PRODUCER')).toEqual([]);
  });

  it("a round's children go out as one send event, and the aggregate step links the pass that sent them", () => {
    const dispatcher = spans.find((span) => span.name === 'dispatcher process');
    const aggregate = spans.find((span) => span.name === 'dispatcher aggregate');
    const leaves = byKind('CONSUMER').filter((span) => span.attributes['tierflow.tier'] === 'SPECIALIZED_FLEET');
    const sends = sendsOf(dispatcher!);
    expect(sends).toHaveLength(1);
    expect(sends[0]!.name).toBe('fleet send');
    expect(sends[0]!.attributes).toMatchObject({ 'messaging.batch.message_count': 2, 'messaging.operation.type': 'send', 'messaging.destination.name': 'fleet' });
    expect(sends[0]!.ids.sort()).toEqual([...new Set(leaves.map((span) => String(span.attributes['tierflow.message.id'])))].sort());
    expect(aggregate?.links.map((link) => link.spanId)).toEqual([dispatcher!.spanId]);
    // A round of one names its message.
    const architect = spans.find((span) => span.name === 'architect process');
    expect(sendsOf(architect!)[0]!.attributes['messaging.message.id']).toBe(sendsOf(architect!)[0]!.ids[0]);
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
    const attempts = byKind('CONSUMER')
      .filter((span) => span.attributes['tierflow.tier'] === 'SPECIALIZED_FLEET' && String(span.attributes['tierflow.message.id']).endsWith('-1'))
      .sort((a, b) => Number(a.attributes['tierflow.attempt']) - Number(b.attributes['tierflow.attempt']));
    expect(attempts.map((span) => [span.attributes['tierflow.attempt'], span.status])).toEqual([
      [1, 'ERROR'],
      [2, 'OK'],
    ]);
    expect(attempts[0]!.events.map((event) => event.name)).toContain('retry');
  });

  it("a long subtask's progress reaches its Fleet span as progress events, in order", () => {
    const first = byKind('CONSUMER').find((span) => span.attributes['tierflow.tier'] === 'SPECIALIZED_FLEET' && String(span.attributes['tierflow.message.id']).endsWith('-0'));
    expect(first?.serviceName).toBe('tierflow-fleet');
    const progress = first!.events.filter((event) => event.name === 'progress');
    // The first report, half a second in, is always kept; of the later ones, one a second at most.
    expect(progress[0]?.attributes).toEqual({ 'tierflow.progress.percent': 25, 'tierflow.progress.note': `sim: 500 of ${SLOW_MS} ms` });
    expect(progress.length).toBeLessThanOrEqual(SLOW_MS / 1_000);
    const percents = progress.map((event) => Number(event.attributes['tierflow.progress.percent']));
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    expect(percents.every((percent) => percent < 100)).toBe(true);
    // Only work that reported progress has progress events.
    expect(spans.filter((span) => span.events.some((event) => event.name === 'progress'))).toEqual([first]);
  });

  it('a run that waits for a person and goes on with the answer is one trace', async () => {
    const { client } = deployment;
    const asking = await client.enqueue({ objective: 'ask first', task_data: { plan: { strategy: 'all_success', subtasks: [{ objective: 'ask', task_data: { sim: { ask: 'Which region?' } } }] } } });
    await waitFor(async () => (await client.tree(asking))?.status === 'input_required', { description: 'the run to ask' });
    await client.answer(asking, 'eu-west');
    expect((await client.waitForResult(asking, { timeoutMs: 20_000 })).payload.status).toBe('success');
    // Both rounds: the Monitor's three passes, two Architect delegations, two of everything below.
    const events = (found: readonly ReceivedSpan[]) => found.filter((span) => span.attributes['tierflow.tier'] === 'PROGRESS_MONITOR').flatMap((span) => span.events.map((event) => event.name));
    const mine = await waitFor(
      () => {
        const found = receiver.spans.filter((span) => span.attributes['tierflow.root_id'] === asking);
        const leaves = found.filter((span) => span.kind === 'CONSUMER' && span.attributes['tierflow.tier'] === 'SPECIALIZED_FLEET');
        return leaves.length >= 2 && events(found).includes('answers received') ? found : null;
      },
      { timeoutMs: 15_000, description: 'the spans of both rounds, the Monitor waiting between them' },
    );
    expect(new Set(mine.map((span) => span.traceId)).size).toBe(1);
    expect(events(mine)).toEqual(expect.arrayContaining(['waiting for answers', 'answers received']));
  });

  it('tierflow trace finds the run by its root id and prints its Jaeger URL, once its spans were exported', async () => {
    expect(await deployment.client.traceId(rootId)).toBe(spans[0]!.traceId);
    // The Monitor marks the trace once the collector took its spans, just after they arrived here.
    const cli = await traceCommand(deployment, rootId, { JAEGER_URL: 'http://jaeger.example:16686/' });
    expect(cli).toMatchObject({ code: 0, stdout: `${spans[0]!.traceId}\nhttp://jaeger.example:16686/trace/${spans[0]!.traceId}\n` });
    // The API gives the dashboard the same link.
    const served = await serveDeployment(deployment.runtime, { jaegerUrl: 'http://jaeger.example:16686' });
    try {
      const run = (await (await fetch(`${served.url}/api/runs/${rootId}`)).json()) as { trace_url: string | null };
      expect(run.trace_url).toBe(`http://jaeger.example:16686/trace/${spans[0]!.traceId}`);
    } finally {
      await served.close();
    }
  });
});

describe('over OTLP/gRPC', () => {
  it('the run is one trace from the four services, and tierflow trace finds it once its spans were exported', async () => {
    const receiver = await startOtlpGrpcReceiver();
    const deployment = await startDeployment('traces-grpc', {
      TIERFLOW_LOG: 'silent',
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: '50',
    });
    try {
      const rootId = await deployment.client.enqueue(objective);
      expect((await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 })).payload.status).toBe('success');
      const traceId = await deployment.client.traceId(rootId);
      await waitFor(() => new Set(receiver.spans.filter((span) => span.traceId === traceId).map((span) => span.serviceName)).size === 4, {
        timeoutMs: 15_000,
        description: 'spans of the run from the four services',
      });
      const cli = await traceCommand(deployment, rootId, { JAEGER_URL: 'http://jaeger.example:16686/' });
      expect(cli).toMatchObject({ code: 0, stdout: `${traceId}\nhttp://jaeger.example:16686/trace/${traceId}\n` });
    } finally {
      await deployment.stop();
      await receiver.close();
    }
  }, 60_000);
});

describe('with no collector listening, or no exporter', () => {
  it('the run completes; a process whose collector is gone warns once, not once per span; one told OTEL_TRACES_EXPORTER=none sends nothing, even as it flushes on shutdown', async () => {
    const gone = await startOtlpReceiver();
    const closed = gone.url;
    await gone.close(); // nothing listens there any more
    const receiver = await startOtlpReceiver();
    const nobody = { ...tracedEnv(gone, 'http/protobuf'), OTEL_EXPORTER_OTLP_TIMEOUT: '1000' };
    const none = { ...tracedEnv(receiver, 'http/json'), OTEL_TRACES_EXPORTER: 'none' };
    // The Monitor (whose export `tierflow trace` reads) and the Architect send to the closed port;
    // the Dispatcher and the Fleet are pointed at a live receiver, but export nothing.
    const deployment = await startDeployment('traces-nobody', nobody, { tierEnv: { dispatcher: none, fleet: none } });
    const served = await serveDeployment(deployment.runtime);
    let rootId = '';
    try {
      for (let i = 0; i < 5; i++) {
        rootId = await deployment.client.enqueue(objective);
        expect((await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 })).payload.status).toBe('success');
      }
      // The Monitor recorded the run's trace, but none of its spans reached a collector: no link leads anywhere.
      const traceId = await deployment.client.traceId(rootId);
      expect(traceId).toMatch(/^[0-9a-f]{32}$/);
      const cli = await tierflow(['trace', rootId], { REDIS_URL: deployment.redis.url, TIERFLOW_PREFIX: deployment.runtime.prefix, OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: closed });
      expect(cli).toEqual({ code: 1, stdout: '', stderr: `no spans of run ${rootId} were exported (trace ${traceId}): the collector at ${closed} did not receive them, or not yet\n` });
      const run = (await (await fetch(`${served.url}/api/runs/${rootId}`)).json()) as { trace_url: string | null };
      expect(run.trace_url).toBeNull();
    } finally {
      await served.close();
      await deployment.stop();
      await receiver.close();
    }
    const warnings = deployment.logs.filter((line) => line.includes('telemetry:'));
    const perTier = new Map<string, number>();
    for (const line of warnings) perTier.set(line.split(' |')[0]!, (perTier.get(line.split(' |')[0]!) ?? 0) + 1);
    expect(Math.max(0, ...perTier.values())).toBeLessThanOrEqual(1);
    expect(warnings.length).toBeGreaterThan(0);
    expect([...perTier.keys()].filter((tier) => tier !== 'monitor' && tier !== 'architect')).toEqual([]);
    expect(receiver.requests).toBe(0);
  }, 60_000);
});
