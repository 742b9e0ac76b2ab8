import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { waitFor } from '@tierflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../security/tier-processes.js';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { simPlan } from '../support/runs.js';
import { serveDeployment, type Served } from '../support/served.js';

// Tierflow as an MCP server over four worker processes on a private Redis, driven by the official
// SDK's client as a desktop assistant drives it: `tierflow mcp` over stdio, and /mcp of `tierflow
// serve` over streamable HTTP.

const QUIET = { TIERFLOW_LOG: 'silent' };
const TOKEN = 'an-mcp-token-of-sixteen-chars';
let deployment: Deployment;
let served: Served;
let stdio: Client;

/** What `tierflow mcp` needs to reach the deployment: its Redis and prefix, as the workers have them. */
const mcpEnv = (): Record<string, string> => ({
  ...(process.env as Record<string, string>),
  ...QUIET,
  OTEL_TRACES_EXPORTER: 'none',
  REDIS_URL: deployment.redis.url,
  TIERFLOW_PREFIX: deployment.runtime.prefix,
});

beforeAll(async () => {
  deployment = await startDeployment('mcp', QUIET);
  served = await serveDeployment(deployment.runtime, { token: TOKEN });
  stdio = new Client({ name: 'tierflow-e2e', version: '1.0.0' });
  await stdio.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env: mcpEnv(), stderr: 'inherit' }));
}, 60_000);

afterAll(async () => {
  await stdio?.close();
  await served?.close();
  await deployment?.stop();
});

const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
const structured = <T>(result: CallToolResult): T => {
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return result.structuredContent as T;
};
interface RunStatus {
  readonly status: string;
  readonly outcome: { readonly status: string } | null;
  readonly open_questions: readonly { readonly id: string; readonly question: string }[];
}
/** Polls run_status until `done` says the run is where the test wants it. */
const statusWhen = (client: Client, rootId: string, done: (status: RunStatus) => boolean, what: string) =>
  waitFor(
    async () => {
      const status = structured<RunStatus>(await call(client, 'run_status', { root_id: rootId }));
      return done(status) ? status : null;
    },
    { timeoutMs: 30_000, intervalMs: 100, description: `run ${rootId}: ${what}` },
  );

describe('tierflow mcp (stdio)', () => {
  it('lists its tools, runs an objective the specialists answer, and gives its outcome as a resource', async () => {
    const { tools } = await stdio.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['answer_questions', 'cancel_run', 'enqueue_objective', 'list_runs', 'run_status', 'run_tree']);
    const { root_id: rootId } = structured<{ root_id: string }>(await call(stdio, 'enqueue_objective', simPlan('all_success', [{ delay_ms: 100 }, { delay_ms: 100 }])));

    const finished = await statusWhen(stdio, rootId, (status) => status.outcome !== null, 'an outcome');
    expect(finished).toMatchObject({ status: 'success', outcome: { status: 'success' }, open_questions: [] });
    const tree = structured<{ status: string; children: unknown[] }>(await call(stdio, 'run_tree', { root_id: rootId }));
    expect(tree).toMatchObject({ id: rootId, tier: 'PROGRESS_MONITOR', status: 'success' });
    expect(tree.children).toHaveLength(1);

    const read = await stdio.readResource({ uri: `tierflow://runs/${rootId}/outcome` });
    const outcome = JSON.parse((read.contents[0] as { text: string }).text) as unknown;
    expect(outcome).toMatchObject({ payload: { status: 'success' } });
    const { resources } = await stdio.listResources();
    expect(resources.map((resource) => resource.uri)).toContain(`tierflow://runs/${rootId}/outcome`);
    const listed = structured<{ runs: { root_id: string }[] }>(await call(stdio, 'list_runs', { status: 'success', limit: 50 }));
    expect(listed.runs.map((run) => run.root_id)).toContain(rootId);
  }, 60_000);

  it('follows a run that asks a person: its question in run_status, answered with answer_questions, and the run goes on to success', async () => {
    const { root_id: rootId } = structured<{ root_id: string }>(await call(stdio, 'enqueue_objective', simPlan('all_success', [{ ask: 'Which region?', delay_ms: 300 }, { delay_ms: 300 }])));
    const asking = await statusWhen(stdio, rootId, (status) => status.status === 'input_required', 'input_required');
    expect(asking.open_questions).toEqual([expect.objectContaining({ question: expect.stringContaining('Which region?') as unknown })]);
    const answered = structured<{ open: number; resumed: boolean }>(await call(stdio, 'answer_questions', { root_id: rootId, text: 'eu-west' }));
    expect(answered).toMatchObject({ open: 0, resumed: true });
    // A second answer finds nothing to answer: an error result, not a failure of the session.
    const again = await call(stdio, 'answer_questions', { root_id: rootId, text: 'eu-west' });
    expect(again.isError).toBe(true);
    const finished = await statusWhen(stdio, rootId, (status) => status.outcome !== null, 'an outcome');
    expect(finished).toMatchObject({ status: 'success', open_questions: [] });
  }, 60_000);

  it('writes nothing but protocol messages to standard output, and exits 0 when standard input closes', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp'], { env: mcpEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })}\n`);
    await waitFor(() => stdout.includes('\n'), { timeoutMs: 15_000, description: `an answer to ping; stderr: ${stderr}` });
    expect(JSON.parse(stdout)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    child.stdin.end();
    const exited = await waitFor(() => (child.exitCode === null && child.signalCode === null ? null : { code: child.exitCode }), { timeoutMs: 15_000, description: 'tierflow mcp to exit' });
    expect(exited).toEqual({ code: 0 });
  }, 30_000);
});

describe('/mcp on tierflow serve (streamable HTTP)', () => {
  const connect = async (headers: Record<string, string>) => {
    const client = new Client({ name: 'tierflow-e2e-http', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), { requestInit: { headers } }));
    return client;
  };

  it('refuses a client without the token (401)', async () => {
    await expect(connect({})).rejects.toMatchObject({ code: 401 });
    const raw = await fetch(`${served.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) });
    expect(raw.status).toBe(401);
  });

  it('serves the same tools with it, and takes an objective larger than the small-body limit', async () => {
    const http = await connect({ authorization: `Bearer ${TOKEN}` });
    try {
      expect((await http.listTools()).tools).toHaveLength(6);
      const { root_id: rootId } = structured<{ root_id: string }>(await call(http, 'enqueue_objective', simPlan('all_success', [{ delay_ms: 100 }])));
      await statusWhen(http, rootId, (status) => status.status === 'success', 'success');
      // 200 KiB of objective: over the 64 KiB a body may have elsewhere, within the objective's limit.
      const large = await call(http, 'enqueue_objective', { objective: 'x'.repeat(200 * 1024), constraints: ['only to be cancelled'] });
      const { root_id: largeId } = structured<{ root_id: string }>(large);
      expect(structured<{ outcome: string }>(await call(http, 'cancel_run', { root_id: largeId })).outcome).toMatch(/^(cancelled|finished)$/);
      const unknown = await call(http, 'run_status', { root_id: 'no-such-run' });
      expect(unknown).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringContaining('no run no-such-run') as unknown }] });
    } finally {
      await http.close();
    }
  }, 60_000);
});
