import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { resolveRuntimeOptions, TierflowClient } from '@tierflow/runtime';
import { uniquePrefix } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tierflowMcpServer } from './mcp-server.js';

// The MCP server against a private Redis with no workers, driven by the SDK's own client over an
// in-memory pair: what it answers before any tier takes a run, and how it refuses.
const db = usePrivateRedis();
let tierflow: TierflowClient;
let mcp: Client;

beforeAll(async () => {
  tierflow = new TierflowClient(resolveRuntimeOptions({ redisUrl: db.server.url, prefix: uniquePrefix('mcp') }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await tierflowMcpServer(tierflow).connect(serverSide);
  mcp = new Client({ name: 'test', version: '1.0.0' });
  await mcp.connect(clientSide);
});

afterAll(async () => {
  await mcp?.close();
  await tierflow?.close();
});

const call = async (name: string, args: Record<string, unknown>) => (await mcp.callTool({ name, arguments: args })) as CallToolResult;
const textOf = (result: CallToolResult) => result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');

describe('the Tierflow MCP server', () => {
  it('lists its tools, each with an input schema; enqueue_objective’s is the objective file’s', async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['answer_questions', 'cancel_run', 'enqueue_objective', 'list_runs', 'run_status', 'run_tree']);
    const enqueue = tools.find((tool) => tool.name === 'enqueue_objective')!;
    expect(enqueue.inputSchema).toMatchObject({ type: 'object', required: ['objective'], properties: { objective: { type: 'string' }, constraints: { type: 'array' } } });
    expect(tools.find((tool) => tool.name === 'cancel_run')!.annotations).toMatchObject({ destructiveHint: true });
  });

  it('enqueues an objective: its root job appears, and the run is listed and has a status and a tree', async () => {
    const enqueued = await call('enqueue_objective', { objective: 'say hello', constraints: ['briefly'] });
    expect(enqueued.isError).toBeFalsy();
    const rootId = (enqueued.structuredContent as { root_id: string }).root_id;
    expect(JSON.parse(textOf(enqueued))).toEqual({ root_id: rootId });
    expect(await tierflow.tree(rootId)).toMatchObject({ id: rootId, tier: 'PROGRESS_MONITOR', status: 'queued' });

    const listed = await call('list_runs', { limit: 5 });
    expect(listed.structuredContent).toMatchObject({ runs: [{ root_id: rootId, status: 'queued', objective: 'say hello' }], next_cursor: null });
    const none = await call('list_runs', { status: 'success' });
    expect(none.structuredContent).toMatchObject({ runs: [] });

    const status = await call('run_status', { root_id: rootId });
    expect(status.structuredContent).toMatchObject({ root_id: rootId, status: 'queued', outcome: null, open_questions: [] });
    const tree = await call('run_tree', { root_id: rootId });
    expect(tree.structuredContent).toMatchObject({ id: rootId, tier: 'PROGRESS_MONITOR', children: [] });
  });

  it('answers an unknown run with an error result, from every tool that takes one', async () => {
    for (const [tool, args] of [
      ['run_status', {}],
      ['run_tree', {}],
      ['cancel_run', {}],
    ] as const) {
      const result = await call(tool, { root_id: 'no-such-run', ...args });
      expect(result.isError, tool).toBe(true);
      expect(textOf(result)).toContain('no run no-such-run');
    }
    const answered = await call('answer_questions', { root_id: 'no-such-run', text: 'yes' });
    expect(answered.isError).toBe(true);
  });

  it('refuses an objective that is not one, naming the problem, and enqueues nothing', async () => {
    const before = (await tierflow.findRuns({ limit: 100 })).runs.length;
    const blank = await call('enqueue_objective', { objective: '' });
    expect(blank.isError).toBe(true);
    expect(textOf(blank)).toMatch(/objective/);
    const misspelt = await call('enqueue_objective', { objective: 'x', constraint: ['y'] });
    expect(misspelt.isError).toBe(true);
    expect(textOf(misspelt)).toContain('constraint');
    // Past the schema, the client's own checks: a plan whose subtask depends on one that is not there.
    const plan = await call('enqueue_objective', { objective: 'x', task_data: { plan: { strategy: 'all_success', subtasks: [{ objective: 'a', depends_on: [5] }] } } });
    expect(plan.isError).toBe(true);
    expect(textOf(plan)).toMatch(/depends_on/);
    expect((await tierflow.findRuns({ limit: 100 })).runs).toHaveLength(before);
  });

  it('cancels a run, and answers a run that asks nothing with an error result', async () => {
    const rootId = (await tierflow.enqueue({ objective: 'to cancel' })).toString();
    const notAsking = await call('answer_questions', { root_id: rootId, text: 'eu-west' });
    expect(notAsking.isError).toBe(true);
    expect(textOf(notAsking)).toMatch(/^not_waiting: /);
    const cancelled = await call('cancel_run', { root_id: rootId, reason: 'not needed' });
    expect(cancelled.isError).toBeFalsy();
    expect(cancelled.structuredContent).toMatchObject({ outcome: 'cancelled', target: rootId });
  });

  it('reads a run’s outcome as a resource, and says when there is none yet', async () => {
    const { resourceTemplates } = await mcp.listResourceTemplates();
    expect(resourceTemplates).toEqual([expect.objectContaining({ uriTemplate: 'tierflow://runs/{root_id}/outcome', mimeType: 'application/json' })]);
    const rootId = await tierflow.enqueue({ objective: 'not taken yet' });
    await expect(mcp.readResource({ uri: `tierflow://runs/${rootId}/outcome` })).rejects.toThrow(/no outcome yet/);
    await expect(mcp.readResource({ uri: 'tierflow://runs/no-such-run/outcome' })).rejects.toThrow(/no run no-such-run/);
  });
});
