import { llmSpecialist, SpecialistRegistry, startFleetWorker } from '@tierflow/fleet';
import type { ObjectiveFile, TierWorker } from '@tierflow/runtime';
import { completion, FakeOpenAiServer, redisClient, waitFor, type FakeRequest } from '@tierflow/testing';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';

// $2.50 per million tokens in, $10 out: the fake endpoint's 12 in and 5 out cost $0.00008 a call.
const PRICE = { input_usd_per_mtok: 2.5, output_usd_per_mtok: 10 };
// The capped specialist asks for at most 100 tokens out, at $10 per million in and $30 out; its
// endpoint counts 900 tokens in (a little under the prompt's estimate) and 100 out: 1,000 a call.
const CAPPED_PRICE = { input_usd_per_mtok: 10, output_usd_per_mtok: 30 };
const MAX_OUT = 100;

/** A request's prompt as the budget estimates it: its messages and response format as JSON, 4 characters a token. */
function promptEstimate(request: FakeRequest): number {
  const { messages, response_format } = request.body as { messages: unknown; response_format?: unknown };
  return Math.ceil(JSON.stringify({ messages, response_format }).length / 4);
}

function llmPlan(subtasks: number, extra: Partial<ObjectiveFile> = {}, specialist = 'llm-writer'): ObjectiveFile {
  return {
    objective: 'write the pieces',
    task_data: {
      plan: {
        strategy: 'all_success',
        subtasks: Array.from({ length: subtasks }, (_, index) => ({ objective: `piece ${index + 1}`, specialist_hint: specialist })),
      },
    },
    ...extra,
  };
}

describe('usage and budgets across worker processes, with a Fleet calling a model endpoint', () => {
  let deployment: Deployment;
  let fleet: TierWorker;
  let server: FakeOpenAiServer;
  // An endpoint whose answers are each worth 1,000 tokens (900 in, 100 out), and one that reports no usage at all.
  let capped: FakeOpenAiServer;
  let silent: FakeOpenAiServer;
  let redis: Redis;
  const warnings: string[] = [];
  const completions = () => server.requests.filter((request) => request.path === '/v1/chat/completions').length;
  const budgetOf = (rootId: string) => `${deployment.runtime.prefix}:budget:${rootId}`;

  beforeAll(async () => {
    server = await FakeOpenAiServer.start(['llm-writer']);
    capped = await FakeOpenAiServer.start(['llm-capped']);
    capped.usage = { prompt_tokens: 900, completion_tokens: MAX_OUT };
    silent = await FakeOpenAiServer.start(['llm-silent']);
    silent.usage = null;
    deployment = await startDeployment('budgets', { TIERFLOW_LOG: 'silent' }, { tiers: ['monitor', 'architect', 'dispatcher'] });
    redis = redisClient(deployment.redis.url);
    const registry = new SpecialistRegistry([
      llmSpecialist({ name: 'llm-writer', baseURL: server.baseURL, apiKey: 'test', price: PRICE }),
      llmSpecialist({ name: 'llm-capped', baseURL: capped.baseURL, apiKey: 'test', price: CAPPED_PRICE, maxTokens: MAX_OUT }),
      llmSpecialist({ name: 'llm-silent', baseURL: silent.baseURL, apiKey: 'test', price: CAPPED_PRICE, maxTokens: MAX_OUT }),
    ]);
    const log = { info: () => undefined, warn: (message: string) => void warnings.push(message) };
    fleet = await startFleetWorker({ runtime: deployment.runtime, registry, log, concurrency: 32 });
  }, 60_000);

  afterAll(async () => {
    await fleet?.close();
    redis?.disconnect();
    await deployment?.stop();
    await server?.close();
    await capped?.close();
    await silent?.close();
  });

  beforeEach(() => {
    capped.release();
    capped.respond = null;
    capped.requests.length = 0;
    silent.requests.length = 0;
  });

  /** The run's counters in Redis, once no call of it is in flight (every reservation settled). */
  async function settledCount(rootId: string) {
    const read = async () => {
      const [calls, tokensIn, tokensOut, micro, held] = await redis.hmget(budgetOf(rootId), 'llm_calls', 'tokens_in', 'tokens_out', 'cost_micro_usd', 'held_tokens');
      return { calls: Number(calls ?? 0), tokensIn: Number(tokensIn ?? 0), tokensOut: Number(tokensOut ?? 0), micro: Number(micro ?? 0), held: Number(held ?? 0) };
    };
    await waitFor(async () => (await read()).held === 0, { timeoutMs: 10_000, description: 'every reservation settled' });
    return read();
  }

  it('a run without a budget reports at its root the tokens, cost and calls of all its subtasks', async () => {
    const before = completions();
    const rootId = await deployment.client.enqueue(llmPlan(4));
    const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 });
    expect(outcome.payload.status).toBe('success');
    expect(completions() - before).toBe(4);
    expect(outcome.payload.resources_used.usage).toEqual({ tokens_in: 48, tokens_out: 20, cost_usd: 0.00032, llm_calls: 4 });
    // Redis counted the same, with no limits to enforce.
    expect(await redis.hmget(`${deployment.runtime.prefix}:budget:${rootId}`, 'llm_calls', 'tokens_in', 'cost_micro_usd', 'exceeded')).toEqual(['4', '48', '320', null]);
  });

  it('a run over max_llm_calls is cancelled whole, once, with budget_exceeded, and its root keeps what was used', async () => {
    const before = completions();
    const rootId = await deployment.client.enqueue(llmPlan(6, { budget: { max_llm_calls: 2 } }));
    const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 });
    expect(outcome.payload).toMatchObject({ status: 'cancelled', error_type: 'budget_exceeded', recoverable: false });
    expect(outcome.payload.error_detail).toContain('max_llm_calls 2 reached');
    // Never more calls than the budget, however many Fleet jobs reserved at once.
    expect(completions() - before).toBeLessThanOrEqual(2);
    const usage = outcome.payload.resources_used.usage as { llm_calls: number; tokens_in: number };
    expect(usage.llm_calls).toBeLessThanOrEqual(2);
    // What was done may come up with the cancellation, each answered call's output once at most:
    // whether a call's answer reaches its parent before the cancellation does is a race (the rule
    // itself, that stopped work passes up what did not fail, is tested in engine/failures.test.ts).
    const outputs = outcome.payload.artifacts.filter((artifact) => artifact.artifact_type === 'llm_output');
    expect(outputs.length).toBeLessThanOrEqual(completions() - before);
    const budgetKey = `${deployment.runtime.prefix}:budget:${rootId}`;
    expect(await redis.hmget(budgetKey, 'max_llm_calls', 'llm_calls', 'exceeded')).toEqual(['2', '2', 'max_llm_calls']);
    // The stop was queued once and taken by the Monitor: nothing is left to cancel.
    await waitFor(async () => (await redis.zcard(`${deployment.runtime.prefix}:budget-stops`)) === 0, { timeoutMs: 10_000, description: 'the budget stop handled' });
  });
  // 32 calls at once, none answered until as many as fit are in flight: each call is worth 1,000
  // tokens, and the budget one call's worth (and a little: a reservation is its prompt estimate,
  // 932, and 100 out) or four calls' worth. Counted only after answers, all 32 went. The others
  // wait for the calls in flight to settle, and are refused once they have.
  it.each([
    ['one call’s worth', 1_100, 1],
    ['four calls’ worth', 4_000, 3],
  ])('max_tokens %s: calls are reserved before they are sent (prompt estimate and max_tokens), so 32 at once never pass the limit', async (_name, limit, fit) => {
    capped.holdUntil(fit);
    const rootId = await deployment.client.enqueue(llmPlan(32, { budget: { max_tokens: limit } }, 'llm-capped'));
    const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 30_000 });
    expect(outcome.payload).toMatchObject({ status: 'cancelled', error_type: 'budget_exceeded' });
    const count = await settledCount(rootId);
    // As many calls as reservations fit were let through, and those sent were within what could be reserved at once.
    expect(count.calls).toBe(fit);
    expect(capped.completions()).toBeLessThanOrEqual(fit);
    const reservations = capped.requests.map((request) => promptEstimate(request) + MAX_OUT);
    expect(reservations.reduce((sum, reservation) => sum + reservation, 0)).toBeLessThanOrEqual(limit);
    expect(count.tokensIn + count.tokensOut).toBeLessThanOrEqual(limit);
  });

  it('max_cost_usd: the reservation is priced at the model’s prices, so 32 calls at once never pass the limit', async () => {
    capped.holdUntil(3);
    // Each answered call costs 900 × $10 + 100 × $30 per million: $0.012; the budget is 4 calls' worth.
    const rootId = await deployment.client.enqueue(llmPlan(32, { budget: { max_cost_usd: 0.048 } }, 'llm-capped'));
    const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 30_000 });
    expect(outcome.payload).toMatchObject({ status: 'cancelled', error_type: 'budget_exceeded' });
    const count = await settledCount(rootId);
    const reservedMicro = capped.requests.map((request) => promptEstimate(request) * 10 + MAX_OUT * 30);
    expect(count.calls).toBe(3);
    expect(reservedMicro.reduce((sum, micro) => sum + micro, 0)).toBeLessThanOrEqual(48_000);
    expect(count.micro).toBeLessThanOrEqual(48_000);
  });

  it('a call aborted by the stop is counted as sent: its prompt estimate is charged, since the provider bills it', async () => {
    // Three calls in flight at once; the first answer counts more tokens than the whole budget,
    // which stops the run, and the two still waiting for theirs (they never come) are aborted.
    capped.holdUntil(3);
    let answered = false;
    capped.respond = () => {
      if (answered) return { hang: true };
      answered = true;
      return { body: completion('llm-capped', capped.defaultContent, { prompt_tokens: 5_000, completion_tokens: MAX_OUT }) };
    };
    const rootId = await deployment.client.enqueue(llmPlan(3, { budget: { max_tokens: 4_000 } }, 'llm-capped'));
    const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 30_000 });
    expect(outcome.payload).toMatchObject({ status: 'cancelled', error_type: 'budget_exceeded' });
    const count = await settledCount(rootId);
    expect(count).toMatchObject({ calls: 3, tokensOut: MAX_OUT, held: 0 });
    // Every subtask's prompt is as long (`piece 1` … `piece 3`): each aborted call is charged that estimate, at $10 per million.
    const estimate = promptEstimate(capped.requests[0]!);
    expect(capped.requests.map(promptEstimate)).toEqual(capped.requests.map(() => estimate));
    expect(count.tokensIn).toBe(5_000 + 2 * estimate);
    expect(count.micro).toBe(count.tokensIn * 10 + MAX_OUT * 30);
  });

  it('an endpoint that reports no usage: each call is charged by estimate, the Fleet warns once, and a token budget still holds', async () => {
    const rootId = await deployment.client.enqueue(llmPlan(3, {}, 'llm-silent'));
    expect((await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 })).payload.status).toBe('success');
    const count = await settledCount(rootId);
    const answerEstimate = Math.ceil(silent.defaultContent.length / 4);
    expect(count).toMatchObject({ calls: 3, tokensIn: silent.requests.map(promptEstimate).reduce((sum, estimate) => sum + estimate, 0), tokensOut: 3 * answerEstimate });
    expect(await redis.hget(budgetOf(rootId), 'estimated_calls')).toBe('3');

    // 32 calls against a budget of about four: estimated or not, the run is stopped within it.
    const before = silent.completions();
    const limited = await deployment.client.enqueue(llmPlan(32, { budget: { max_tokens: 4_000 } }, 'llm-silent'));
    const outcome = await deployment.client.waitForResult(limited, { timeoutMs: 30_000 });
    expect(outcome.payload).toMatchObject({ status: 'cancelled', error_type: 'budget_exceeded' });
    const spent = await settledCount(limited);
    expect(silent.completions() - before).toBeGreaterThan(0);
    expect(spent.tokensIn + spent.tokensOut).toBeLessThanOrEqual(4_000);
    expect(warnings.filter((warning) => warning.includes('reported no usage'))).toHaveLength(1);
  });
});
