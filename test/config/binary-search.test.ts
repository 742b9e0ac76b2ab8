import { fileURLToPath } from 'node:url';
import { readFile } from 'node:fs/promises';
import { completion, FakeOpenAiServer, waitFor } from '@tierflow/testing';
import { renderTree } from '@tierflow/cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';

// The worked example of docs/extending.md, as shipped in examples/binary-search, against a model
// server the test runs: one writer's code is wrong, one is right, one never answers.
const EXAMPLE = fileURLToPath(new URL('../../examples/binary-search/', import.meta.url));

const RIGHT = `def binary_search(items, target):
    lo, hi = 0, len(items) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if items[mid] == target:
            return mid
        if items[mid] < target:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1`;
// Misses the last element and the empty list, and takes its time: writer-b has won before it is graded.
const WRONG = 'def binary_search(items, target):\n    import time\n    time.sleep(0.5)\n    return items.index(target) if target in items[:-1] else -1';

const answer = (code: string) => JSON.stringify({ summary: 'wrote binary_search', confidence: 0.9, output: code });

let models: FakeOpenAiServer;
let deployment: Deployment;

beforeAll(async () => {
  models = await FakeOpenAiServer.start(['python-lora', 'general-lora']);
  models.respond = (body) => {
    const careful = body.messages?.[0]?.content.includes('empty input') ?? false;
    if (body.model === 'general-lora') return { hang: true };
    return { body: completion(body.model ?? '', answer(careful ? RIGHT : WRONG)) };
  };
  deployment = await startDeployment('binary-search', { TIERFLOW_CONFIG: `${EXAMPLE}tierflow.config.ts`, OPENAI_BASE_URL: models.baseURL, OPENAI_API_KEY: 'test' });
}, 60_000);

afterAll(async () => {
  await deployment?.stop();
  await models?.close();
});

describe('the binary-search example', () => {
  it('races three writers under first_success; the first candidate that passes the code runner wins, the others are stopped', async () => {
    const objective = JSON.parse(await readFile(`${EXAMPLE}objective.json`, 'utf8')) as unknown;
    // All three writers are asked before any is answered: each race below then has the same entrants.
    models.holdUntil(3);
    const id = await deployment.client.enqueue(objective);
    const outcome = await deployment.client.waitForResult(id, { timeoutMs: 60_000 });
    const { payload } = outcome;
    expect(payload.status, `${payload.summary}\n${deployment.logs.join('\n')}`).toBe('success');
    const results = payload.artifacts.filter((artifact) => artifact.artifact_type === 'test_result');
    expect(results.map((artifact) => artifact.metadata)).toContainEqual(expect.objectContaining({ passed: 5, total: 5, language: 'python' }));
    expect(payload.artifacts.map((artifact) => artifact.inline_content)).toContain(RIGHT);
    // The whole run's model calls at the root, stopped writers' included: the two that answered
    // (12 in, 5 out each; writer-a was stopped while its code was being graded), and the third,
    // stopped mid-call, billed its prompt as the provider may have received it.
    const usage = payload.resources_used['usage'] as { tokens_in: number; tokens_out: number; llm_calls: number };
    expect(usage).toMatchObject({ tokens_out: 10, llm_calls: 3 });
    expect(usage.tokens_in).toBeGreaterThan(24);
    await waitFor(() => models.abandoned === 1, { description: 'the losing writer’s request to be closed' });
    // `tierflow status` shows the same at the root, and each writer's own calls on its line.
    const tree = await deployment.client.tree(id);
    expect(tree?.usage).toEqual(usage);
    const lines = renderTree(tree!).split('\n');
    expect(lines.find((line) => line.includes('writer-b'))).toContain('writer-b  success  1.00  1 call  17 tokens  $0.000003');
  });
});
