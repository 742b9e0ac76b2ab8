import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { readAuditTrail, readNodeView } from '@tierflow/runtime/admin';
import type { RunNode } from '@tierflow/runtime';
import { redisClient } from '@tierflow/testing';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';

// The tool-use example, as shipped in examples/tool-use and as `npm run demo` runs it: an LLM
// specialist calling the project file's count_words and an MCP server's list_notes and read_note,
// against the example's own scripted model.
const EXAMPLE = fileURLToPath(new URL('../../examples/tool-use/', import.meta.url));

interface ScriptedModel {
  readonly url: string;
  close(): Promise<void>;
}

let model: ScriptedModel;
let deployment: Deployment;
let redis: Redis;

beforeAll(async () => {
  const { startScriptedModel } = (await import(pathToFileURL(`${EXAMPLE}scripted-model.js`).href)) as { startScriptedModel: () => Promise<ScriptedModel> };
  model = await startScriptedModel();
  deployment = await startDeployment('tool-use', { TIERFLOW_CONFIG: `${EXAMPLE}tierflow.config.ts`, OPENAI_BASE_URL: `${model.url}/v1`, OPENAI_API_KEY: 'test' });
  redis = redisClient(deployment.redis.url);
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  await deployment?.stop();
  await model?.close();
});

const leavesOf = (node: RunNode): RunNode[] => (node.children.length === 0 ? [node] : node.children.flatMap(leavesOf));

describe('the tool-use example', () => {
  it('the librarian lists the notes, reads them together, counts their words and answers; each call recorded and audited', async () => {
    const objective = JSON.parse(await readFile(`${EXAMPLE}objective.json`, 'utf8')) as unknown;
    const rootId = await deployment.client.enqueue(objective);
    const { payload } = await deployment.client.waitForResult(rootId, { timeoutMs: 30_000 });
    expect(payload.status, `${payload.summary}\n${deployment.logs.join('\n')}`).toBe('success');

    const [leaf] = leavesOf((await deployment.client.tree(rootId))!);
    expect(leaf).toMatchObject({ tier: 'SPECIALIZED_FLEET', task_type: 'summarize_notes', specialist: 'librarian', status: 'success' });
    const view = await readNodeView(redis, deployment.runtime.prefix, leaf!.id, deployment.runtime.signing);
    expect(view?.outcome?.summary).toBe('Read 3 notes (91 words); the longest is queues.txt, with 45 words');
    // One list, then three reads in one answer, then three counts in one answer: seven calls, all ok.
    const calls = view!.tools;
    expect(calls.map((call) => `${call.name} ${call.end}`).sort()).toEqual([
      'count_words ok',
      'count_words ok',
      'count_words ok',
      'mcp:notes/list_notes ok',
      'mcp:notes/read_note ok',
      'mcp:notes/read_note ok',
      'mcp:notes/read_note ok',
    ]);
    expect(calls.find((call) => call.name === 'mcp:notes/list_notes')?.result).toBe('["queues.txt","tiers.txt","tools.txt"]');
    expect(calls.filter((call) => call.name === 'mcp:notes/read_note').map((call) => call.arguments)).toEqual(
      expect.arrayContaining([{ name: 'queues.txt' }, { name: 'tiers.txt' }, { name: 'tools.txt' }]),
    );
    expect(calls.filter((call) => call.name === 'count_words').map((call) => call.result)).toEqual(expect.arrayContaining(['{"words":45}', '{"words":17}', '{"words":29}']));
    expect(calls.every((call) => call.caller === 'fleet:librarian')).toBe(true);

    // The audit trail: one `tool` entry per call, sent by the Fleet to `tool:<name>`.
    const tools = (await readAuditTrail(redis, deployment.runtime.prefix, rootId)).filter((entry) => entry.kind === 'tool');
    expect(tools).toHaveLength(7);
    expect(tools.filter((entry) => entry.to === 'tool:mcp:notes/read_note')).toHaveLength(3);
    expect(tools.filter((entry) => entry.to === 'tool:count_words')).toHaveLength(3);
    expect(tools.every((entry) => entry.status === 'ok' && entry.from === 'SPECIALIZED_FLEET')).toBe(true);
  });
});

describe("the example's notes server", () => {
  let client: Client;
  let outside: string;

  beforeAll(async () => {
    // A link in the notes folder to a file outside it: read_note must not follow it out.
    outside = await mkdtemp(join(tmpdir(), 'tierflow-notes-'));
    await writeFile(join(outside, 'secret.txt'), 'not a note');
    const folder = join(outside, 'notes');
    await mkdir(folder);
    await writeFile(join(folder, 'a.txt'), 'one note');
    await symlink(join(outside, 'secret.txt'), join(folder, 'link.txt'));
    client = new Client({ name: 'tierflow-e2e', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [`${EXAMPLE}notes-server.js`, folder], stderr: 'inherit' }));
  });

  afterAll(async () => {
    await client?.close();
    await rm(outside, { recursive: true, force: true });
  });

  const call = async (name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = (result: CallToolResult) => result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');

  it('reads only the files of its folder', async () => {
    expect(text(await call('list_notes'))).toBe('["a.txt"]');
    expect(text(await call('read_note', { name: 'a.txt' }))).toBe('one note');
    for (const name of ['../secret.txt', 'link.txt', '..', '.', '', '/etc/passwd', 'sub/a.txt', 'missing.txt']) {
      const result = await call('read_note', { name });
      expect(result.isError, name).toBe(true);
      expect(text(result), name).toContain('no note');
    }
  });
});
