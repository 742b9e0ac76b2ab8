import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { completion, FakeOpenAiServer, waitFor } from '@tierflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { startOtlpReceiver, tracingTo, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';

// A run over four worker processes whose Architect plans with a model and whose Fleet leaf is a
// model, both behind a fake OpenAI-compatible endpoint: its spans in the GenAI conventions. One
// deployment tries both shapes, as each process reads its own environment: the Monitor and the
// Fleet send OTLP/JSON in the default conventions (v1.41) without content; the Architect and the
// Dispatcher send OTLP/protobuf in the latest conventions, prompts and answers captured.

const PLAN = { strategy: 'all_success', subtasks: [{ objective: 'write a haiku about queues', specialist_hint: 'llm-writer' }] };
// Token counts no default would give: the spans must carry exactly these.
const USAGE = { prompt_tokens: 31, completion_tokens: 7 };
// Monitor, Architect, Dispatcher a first and an aggregate pass each (6), the Fleet's leaf (1).
const HOPS = 7;
// The Architect's planner and the leaf's specialist.
const CALLS = 2;
const LATEST = {
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
  OTEL_SEMCONV_STABILITY_OPT_IN: 'http,gen_ai_latest_experimental',
  OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
};
const CONTENT = ['gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.system_instructions'];

let project: string;
let models: FakeOpenAiServer;
let receiver: OtlpReceiver;
let deployment: Deployment;
let rootId: string;
let spans: ReceivedSpan[];

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'tierflow-gen-ai-'));
  models = await FakeOpenAiServer.start(['llm-writer', 'planner']);
  models.usage = USAGE;
  models.respond = (body) => (body.model === 'planner' ? { body: { ...(completion('planner', JSON.stringify(PLAN), USAGE) as object), id: 'chatcmpl-plan' } } : undefined);
  const config = join(project, 'tierflow.config.json');
  await writeFile(
    config,
    JSON.stringify({
      specialists: [{ kind: 'llm', name: 'llm-writer', baseURL: models.baseURL, maxTokens: 200 }],
      // The planner names its provider (a vLLM server here); the specialist's is told from the host.
      architect: { planner: { kind: 'llm', model: 'planner', baseURL: models.baseURL, provider: 'vllm' } },
    }),
  );
  receiver = await startOtlpReceiver();
  deployment = await startDeployment(
    'gen-ai',
    { TIERFLOW_LOG: 'silent', TIERFLOW_CONFIG: config, ...tracingTo(receiver, 'http/json'), OTEL_BSP_SCHEDULE_DELAY: '50' },
    { tierEnv: { architect: LATEST, dispatcher: LATEST } },
  );
  rootId = await deployment.client.enqueue({ objective: 'plan and write' });
  expect((await deployment.client.waitForResult(rootId, { timeoutMs: 30_000 })).payload.status).toBe('success');
  spans = await waitFor(
    () => {
      const traceId = receiver.spans.find((span) => span.attributes['tierflow.root_id'] === rootId)?.traceId;
      const mine = receiver.spans.filter((span) => span.traceId === traceId);
      return mine.length >= HOPS + CALLS ? mine : null;
    },
    { timeoutMs: 15_000, description: `${HOPS + CALLS} spans of the run` },
  );
}, 60_000);

afterAll(async () => {
  await deployment?.stop();
  await receiver?.close();
  await models?.close();
  if (project) await rm(project, { recursive: true, force: true });
});

const latest = (span: ReceivedSpan) => span.serviceName === 'tierflow-architect' || span.serviceName === 'tierflow-dispatcher';
const hops = () => spans.filter((span) => span.attributes['tierflow.tier'] !== undefined);
const call = (model: string) => spans.find((span) => span.name === `chat ${model}`)!;

describe('spans in the GenAI conventions, over OTLP/JSON and OTLP/protobuf', () => {
  it('arrive in both encodings, as each process was told', () => {
    expect(spans).toHaveLength(HOPS + CALLS);
    for (const span of spans) expect(span.encoding, span.name).toBe(latest(span) ? 'protobuf' : 'json');
  });

  it('each pass is an agent invocation: the tier, or the specialist for the Fleet leaf, in the run as the conversation', () => {
    expect(hops()).toHaveLength(HOPS);
    const agents = new Map(hops().map((span) => [span.attributes['gen_ai.agent.name'], span]));
    expect([...agents.keys()].sort()).toEqual(['architect', 'dispatcher', 'llm-writer', 'monitor']);
    for (const span of hops()) {
      expect(span.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': rootId, 'messaging.system': 'bullmq' });
      // The latest conventions leave the id off internal agents.
      if (latest(span)) expect(span.attributes['gen_ai.agent.id'], span.name).toBeUndefined();
    }
    expect(agents.get('monitor')?.attributes['gen_ai.agent.id']).toBe('tierflow.monitor');
    expect(agents.get('llm-writer')?.attributes['gen_ai.agent.id']).toBe('llm-writer');
    // The messaging name stays: it says whose queue's pass it is.
    expect(agents.get('llm-writer')?.name).toBe('fleet process');
  });

  it('each model call, a planner’s and a specialist’s, is a CLIENT span `chat {model}` under its pass, with the tokens the server reported', () => {
    const parentOf = (span: ReceivedSpan) => spans.find((other) => other.spanId === span.parentSpanId);
    const planner = call('planner');
    const writer = call('llm-writer');
    expect(planner.serviceName).toBe('tierflow-architect');
    expect(parentOf(planner)?.name).toBe('architect process');
    expect(writer.serviceName).toBe('tierflow-fleet');
    expect(parentOf(writer)?.attributes['gen_ai.agent.name']).toBe('llm-writer');
    const port = Number(new URL(models.baseURL).port);
    for (const [span, model, id] of [
      [planner, 'planner', 'chatcmpl-plan'],
      [writer, 'llm-writer', 'chatcmpl-test'],
    ] as const) {
      expect(span.kind).toBe('CLIENT');
      expect(span.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': model === 'planner' ? 'vllm' : 'openai',
        'gen_ai.request.model': model,
        'gen_ai.response.model': model,
        'gen_ai.response.id': id,
        'gen_ai.usage.input_tokens': USAGE.prompt_tokens,
        'gen_ai.usage.output_tokens': USAGE.completion_tokens,
        'server.address': '127.0.0.1',
        'server.port': port,
        'tierflow.cost_usd': 0,
        'tierflow.model_call.purpose': model === 'planner' ? 'planner' : 'specialist',
      });
      expect(JSON.parse(String(span.attributes['gen_ai.response.finish_reasons']))).toEqual(['stop']);
    }
    expect(writer.attributes['gen_ai.request.max_tokens']).toBe(200);
    // Per-modality counts in the latest conventions only.
    expect(planner.attributes).toMatchObject({ 'gen_ai.usage.text.input_tokens': USAGE.prompt_tokens, 'gen_ai.usage.text.output_tokens': USAGE.completion_tokens });
    expect(writer.attributes['gen_ai.usage.text.input_tokens']).toBeUndefined();
  });

  it('carry prompts and answers, in the conventions’ form, only where the capture variable is true', () => {
    for (const key of CONTENT) expect(call('llm-writer').attributes[key], key).toBeUndefined();
    const planner = call('planner');
    expect(JSON.parse(String(planner.attributes['gen_ai.system_instructions']))).toEqual([{ type: 'text', content: expect.stringContaining('You plan work') as unknown }]);
    const input = JSON.parse(String(planner.attributes['gen_ai.input.messages'])) as { role: string; parts: { type: string; content: string }[] }[];
    expect(input).toEqual([{ role: 'user', parts: [{ type: 'text', content: expect.stringContaining('Objective: plan and write') as unknown }] }]);
    expect(JSON.parse(String(planner.attributes['gen_ai.output.messages']))).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: JSON.stringify(PLAN) }], finish_reason: 'stop' }]);
  });
});
