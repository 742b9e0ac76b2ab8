import { ROOT_CONTEXT } from '@opentelemetry/api';
import { SpecialistRegistry } from '@tierflow/fleet';
import type { Usage } from '@tierflow/protocol';
import type { HandoffInterceptor } from '@tierflow/runtime';
import { UNMETERED, UNRECORDED_CALLS, type ModelLimit, type ModelLimiter, type PlanRequest } from '@tierflow/runtime/policy';
import { completion, FakeOpenAiServer } from '@tierflow/testing';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findConfigFile, loadConfig, readConfigFile } from './config-file.js';
import { projectConfigSchema, type ProjectConfigInput } from './config-schema.js';
import { discoveredSpecialists, projectCalibration, tierSetup } from './tier-setup.js';

let dir: string;
let server: FakeOpenAiServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tierflow-setup-'));
  await writeFile(join(dir, 'planner.mjs'), 'export const plan = async (request) => ({ strategy: "all_success", subtasks: [{ objective: request.objective }] });\nexport const notAFunction = 3;\n');
  await writeFile(join(dir, 'two.mjs'), 'const run = async () => ({ summary: "ok", confidence: 1 });\nexport default [{ name: "a", version: "1", run }, { name: "b", version: "1", run }];\n');
  await writeFile(join(dir, 'bad.mjs'), 'export default { name: "bad name!", version: "1", run: async () => ({}) };\n');
  await writeFile(
    join(dir, 'interceptors.mjs'),
    'const pass = (handoff, next) => next(handoff);\nexport default [{ name: "mine", send: pass }, { name: "theirs", receive: pass }];\nexport const idle = { name: "idle" };\nexport const isolate = (work) => ({ ...work, summary: null });\n',
  );
  server = await FakeOpenAiServer.start(['python-lora', 'sql-lora', 'org/base-model']);
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const setupOf = (config: ProjectConfigInput, env: NodeJS.ProcessEnv = {}) => tierSetup({ file: join(dir, 'tierflow.config.json'), config: projectConfigSchema.parse(config) }, env);
const silent = { info: () => undefined, warn: () => undefined };

/** A limiter that grants every call, telling `onReserve` what it was asked. */
function grantingLimiter(onReserve: (model: string, limit: ModelLimit) => unknown): ModelLimiter {
  return {
    reserve: (model, limit) => Promise.resolve(void onReserve(model, limit)).then(() => ({ granted: true as const })),
    settle: () => Promise.resolve(),
    pause: () => Promise.resolve(),
  };
}

/** What a planner (`common`) and a specialist are given in these tests, calling models under `limiter`. */
function inputs(limiter: ModelLimiter) {
  const common = {
    objective: 'write it',
    constraints: [],
    contextRefs: [],
    taskData: {},
    deadline: null,
    signal: new AbortController().signal,
    usage: UNMETERED,
    calls: { ...UNRECORDED_CALLS, limiter },
  };
  const specialist = {
    ...common,
    messageId: 'm1',
    rootId: 'r1',
    taskType: 'execute_code',
    readContext: () => Promise.resolve({}),
    expectedOutputSchema: null,
    repair: null,
    attempt: 1,
    traceContext: ROOT_CONTEXT,
    progress: () => undefined,
  };
  return { common, specialist };
}

describe('tierSetup', () => {
  it('builds LLM specialists, loads module specialists (one or a list) and planners, and passes routes on', async () => {
    const setup = await setupOf({
      specialists: [
        { kind: 'llm', name: 'writer', model: 'python-lora', baseURL: server.baseURL },
        { kind: 'module', module: './two.mjs' },
      ],
      routing: { code: ['writer', 'sim'] },
      architect: { planner: { kind: 'module', module: './planner.mjs', export: 'plan' }, maxRevisions: 2 },
      dispatcher: { decomposer: { kind: 'llm', model: 'planner', baseURL: server.baseURL } },
    });
    expect(setup.specialists.map((specialist) => specialist.name)).toEqual(['writer', 'a', 'b']);
    expect(setup.specialists[0]?.config).toMatchObject({ kind: 'llm', model: 'python-lora' });
    expect(setup.dispatcher.routing).toEqual({ code: ['writer', 'sim'] });
    expect(setup.architect.maxRevisions).toBe(2);
    expect(typeof setup.architect.planner).toBe('function');
    expect(typeof setup.dispatcher.decomposer).toBe('function');
  });

  it('holds every model of an endpoint with limits to the one limit, kept under the endpoint, and refuses a model with limits of its own there', async () => {
    const endpointLimits = { [`${server.baseURL}/`]: { concurrent: 3 } };
    const setup = await setupOf({
      specialists: [
        { kind: 'llm', name: 'writer', model: 'python-lora', baseURL: server.baseURL },
        { kind: 'llm', name: 'querier', model: 'sql-lora', baseURL: server.baseURL },
      ],
      models: { limits: endpointLimits },
    });
    const seen: string[] = [];
    const { specialist: input } = inputs(grantingLimiter((model, limit) => seen.push(`${model} ${limit.concurrent}`)));
    for (const specialist of setup.specialists) await specialist.run(input);
    expect(seen).toEqual([`${server.baseURL} 3`, `${server.baseURL} 3`]);
    await expect(
      setupOf({ specialists: [{ kind: 'llm', name: 'writer', model: 'python-lora', baseURL: server.baseURL }], models: { limits: { ...endpointLimits, 'python-lora': { rpm: 6 } } } }),
    ).rejects.toThrow(/python-lora has limits of its own and so has its endpoint/);
  });

  it('holds each model to models.limits, the specialists’ calls and the planners’ alike, and refuses a limit that is not a whole number above 0', async () => {
    const setup = await setupOf({
      specialists: [{ kind: 'llm', name: 'writer', model: 'python-lora', baseURL: server.baseURL }],
      dispatcher: { decomposer: { kind: 'llm', model: 'sql-lora', baseURL: server.baseURL } },
      models: { limits: { 'python-lora': { rpm: 6, tpm: 9_000 }, 'sql-lora': { concurrent: 2 } } },
    });
    const limitsSeen: [string, ModelLimit][] = [];
    const { common, specialist } = inputs(grantingLimiter((model, limit) => limitsSeen.push([model, limit])));
    await setup.specialists[0]!.run(specialist);
    server.respond = () => ({ body: completion('sql-lora', JSON.stringify({ strategy: 'all_success', subtasks: [{ objective: 'x' }] })) });
    try {
      await setup.dispatcher.decomposer!({ ...common, taskType: 'solve', log: silent } as unknown as PlanRequest);
    } finally {
      server.respond = null;
    }
    expect(limitsSeen).toEqual([
      ['python-lora', { rpm: 6, tpm: 9_000, concurrent: null, windowMs: 60_000, sharedBy: null }],
      ['sql-lora', { rpm: null, tpm: null, concurrent: 2, windowMs: 60_000, sharedBy: null }],
    ]);
    expect(projectConfigSchema.safeParse({ models: { limits: { m: { rpm: 0 } } } }).success).toBe(false);
    expect(projectConfigSchema.safeParse({ models: { limits: { m: { tpm: 1.5 } } } }).success).toBe(false);
    expect(projectConfigSchema.safeParse({ models: { limits: { m: { rps: 1 } } } }).success).toBe(false);
  });

  it('hands the Dispatcher the routes apart from the routing settings', async () => {
    const setup = await setupOf({ routing: { code: ['sim'], mode: 'learned', objective: 'latency', exploration: 0.05 } });
    // …and the reader of the lock file it pins delegations to (docs/operations.md#governed-handoffs).
    const lockedAgents = expect.any(Function) as unknown;
    expect(setup.dispatcher).toEqual({ routing: { code: ['sim'] }, routingMode: 'learned', routingObjective: 'latency', exploration: 0.05, lockedAgents });
    expect((await setupOf({ routing: { mode: 'shadow' } })).dispatcher).toEqual({ routingMode: 'shadow', lockedAgents });
  });

  it('prices each model call as models.prices says, and hands the Monitor the default budget', async () => {
    const setup = await setupOf({
      specialists: [{ kind: 'llm', name: 'writer', model: 'python-lora', baseURL: server.baseURL, maxTokens: 50 }],
      models: { prices: { 'python-lora': { input_usd_per_mtok: 1_000, output_usd_per_mtok: 2_000 } } },
      budget: { max_llm_calls: 10 },
    });
    expect(setup.monitor).toEqual({ budget: { max_llm_calls: 10 } });
    const reserved: Usage[] = [];
    const recorded: Usage[] = [];
    const result = await setup.specialists[0]!.run({
      messageId: 'm1',
      rootId: 'r1',
      objective: 'write it',
      taskType: 'execute_code',
      constraints: [],
      contextRefs: [],
      readContext: () => Promise.resolve({}),
      taskData: {},
      expectedOutputSchema: null,
      repair: null,
      deadline: null,
      attempt: 1,
      signal: new AbortController().signal,
      traceContext: ROOT_CONTEXT,
      usage: {
        reserve: (estimate) => {
          if (estimate) reserved.push(estimate);
          return Promise.resolve({ settle: (usage) => Promise.resolve(void recorded.push(usage)) });
        },
        record: () => Promise.resolve(),
      },
      calls: UNRECORDED_CALLS,
      progress: () => undefined,
    });
    // The reservation holds maxTokens out; 12 tokens in at $1,000 and 5 out at $2,000 per million are charged.
    expect(reserved).toEqual([expect.objectContaining({ tokens_out: 50 })]);
    expect(recorded).toEqual([expect.objectContaining({ cost_usd: 0.022 })]);
    expect(result.resources_used).toMatchObject({ usage: { tokens_in: 12, tokens_out: 5, cost_usd: 0.022, llm_calls: 1 } });
  });

  it('hands the Monitor the history half-life, in milliseconds or as a duration, and calibration to the runtime unless the environment says', async () => {
    expect((await setupOf({ history: { halfLife: '12h' } })).monitor).toEqual({ historyHalfLifeMs: 43_200_000 });
    expect((await setupOf({ history: { halfLife: 90_000, calibrate: false } })).monitor).toEqual({ historyHalfLifeMs: 90_000 });
    for (const [halfLife, ms] of [
      ['1d', 86_400_000],
      ['1.5h', 5_400_000],
      ['90m', 5_400_000],
      ['30s', 30_000],
      ['2500ms', 2_500],
    ] as const) {
      expect(projectConfigSchema.parse({ history: { halfLife } }).history?.halfLife).toBe(ms);
    }
    for (const halfLife of ['1 day', '1y', '-1d', 'd', 500, 1.5, '0.5s']) {
      const problem = projectConfigSchema.safeParse({ history: { halfLife } });
      expect(problem.success ? null : problem.error.issues[0]?.message, String(halfLife)).toMatch(/must be a duration such as "1d"/);
    }
    expect(projectConfigSchema.safeParse({ history: { calibrate: 'yes' } }).success).toBe(false);
    const config = projectConfigSchema.parse({ history: { calibrate: false } });
    expect(projectCalibration(config, {})).toBe(false);
    expect(projectCalibration(config, { TIERFLOW_CALIBRATION: 'on' })).toBeUndefined();
    expect(projectCalibration(projectConfigSchema.parse({}), {})).toBeUndefined();
  });

  it('gives an LLM specialist the tools it names, and refuses a name no tool has, an undeclared MCP server, a bad tool and two of one name', async () => {
    const lookUp = { name: 'look_up', description: 'Looks a word up', run: () => 'found' };
    const setup = await setupOf({
      tools: [lookUp],
      mcp: { files: { command: 'node', args: ['files-server.js'] } },
      specialists: [{ kind: 'llm', name: 'helper', baseURL: server.baseURL, tools: ['look_up', 'mcp:files/*'], maxToolCalls: 3 }],
    });
    expect(setup.specialists[0]?.config).toMatchObject({ tools: ['look_up', 'mcp:files/*'], maxToolCalls: 3 });
    await setup.close();
    const helper = (tools: string[]) => ({ kind: 'llm' as const, name: 'helper', baseURL: server.baseURL, tools });
    await expect(setupOf({ tools: [lookUp], specialists: [helper(['look_it_up'])] })).rejects.toThrow("specialists[0].tools: look_it_up: no tool of that name in the project's tools");
    await expect(setupOf({ specialists: [helper(['mcp:web/fetch'])] })).rejects.toThrow('specialists[0].tools: mcp:web/fetch: no MCP server "web"');
    await expect(setupOf({ tools: [{ ...lookUp, name: 'look up' }] })).rejects.toThrow(/tools\[0\]: tool "look up": its name must be 1 to 64 letters/);
    await expect(setupOf({ tools: [lookUp, lookUp] })).rejects.toThrow('tools: two tools named "look_up"');
    expect(projectConfigSchema.safeParse({ mcp: { files: { command: 'x', url: 'http://x' } } }).success).toBe(false);
  });

  it('takes a model endpoint only as an http(s) URL', () => {
    const problem = projectConfigSchema.safeParse({ models: { baseURL: 'localhost:8000/v1' } });
    expect(problem.success ? null : problem.error.issues[0]?.message).toBe('must be an http:// or https:// URL');
    expect(projectConfigSchema.safeParse({ specialists: [{ kind: 'llm', name: 'w', baseURL: 'ftp://host/v1' }] }).success).toBe(false);
  });

  it('makes a checked writer of two specialists the file names, in the order the file lists them', async () => {
    const setup = await setupOf({
      specialists: [
        { kind: 'checked', name: 'checked-a', writer: 'a', checker: 'sim' },
        { kind: 'module', module: './two.mjs' },
      ],
    });
    expect(setup.specialists.map((specialist) => specialist.name)).toEqual(['checked-a', 'a', 'b']);
    expect(setup.specialists[0]?.config).toMatchObject({ kind: 'checked', writer: { name: 'a' }, checker: { name: 'sim' } });
  });

  it('makes a specialist of a remote A2A agent, its token read from the variable the file names', async () => {
    const setup = await setupOf({ specialists: [{ kind: 'a2a', name: 'remote-writer', url: 'http://127.0.0.1:9/', tokenEnv: 'WRITER_TOKEN', maxConcurrent: 2 }] }, { WRITER_TOKEN: 'secret' });
    expect(setup.specialists.map((specialist) => [specialist.name, specialist.config, specialist.maxConcurrent])).toEqual([['remote-writer', { kind: 'a2a', url: 'http://127.0.0.1:9/' }, 2]]);
  });

  it('builds the interceptors in the file’s order: the built-ins by kind, modules of your own, objects as they are', async () => {
    const object: HandoffInterceptor = { name: 'object', send: (handoff, next) => next(handoff) };
    const setup = await setupOf({
      interceptors: [
        { kind: 'evidence-grades', minimum: 'PP' },
        { kind: 'module', module: './interceptors.mjs' },
        object,
        { kind: 'tone-isolation', groups: { generative: ['write'] }, isolate: { module: './interceptors.mjs', export: 'isolate' } },
      ],
    });
    expect(setup.interceptors.map((interceptor) => interceptor.name)).toEqual(['evidence-grades', 'mine', 'theirs', 'object', 'tone-isolation']);
    expect((await setupOf({})).interceptors).toEqual([]);
  });

  it.each<[string, ProjectConfigInput, string]>([
    [
      'a module export that is not an interceptor',
      { interceptors: [{ kind: 'module', module: './interceptors.mjs', export: 'idle' }] },
      'interceptors[0] (./interceptors.mjs): must have a send or a receive hook',
    ],
    [
      'a rewriter export that is not a function',
      { interceptors: [{ kind: 'tone-isolation', isolate: { module: './planner.mjs', export: 'notAFunction' } }] },
      'interceptors[0].isolate: ./planner.mjs exports a value that is not a function',
    ],
    ['a token variable that is unset', { specialists: [{ kind: 'a2a', name: 'r', url: 'http://127.0.0.1:9', tokenEnv: 'NO_SUCH_TOKEN' }] }, 'specialists[0].tokenEnv: NO_SUCH_TOKEN is not set'],
    [
      'a checked writer naming no specialist of the file',
      { specialists: [{ kind: 'checked', name: 'c', writer: 'nobody', checker: 'sim' }] },
      'specialists[0].writer: no specialist of that name in this file',
    ],
    [
      'a planner export that is not a function',
      { architect: { planner: { kind: 'module', module: './planner.mjs', export: 'notAFunction' } } },
      'architect.planner: ./planner.mjs exports "notAFunction" that is not a function',
    ],
    ['a missing export', { specialists: [{ kind: 'module', module: './planner.mjs', export: 'nothing' }] }, 'specialists[0]: '],
    ['an invalid specialist from a module', { specialists: [{ kind: 'module', module: './bad.mjs' }] }, 'specialists[0] (./bad.mjs): invalid specialist: name "bad name!"'],
    ['a key variable that is unset', { models: { apiKeyEnv: 'NO_SUCH_KEY' }, specialists: [{ kind: 'llm', name: 'x' }] }, 'specialists[0].apiKeyEnv: NO_SUCH_KEY is not set'],
  ])('refuses %s, naming the file and field', async (_name, config, expected) => {
    await expect(setupOf(config)).rejects.toMatchObject({ code: 'invalid_config', problems: [expect.stringContaining(expected)] });
  });
});

describe('discoveredSpecialists', () => {
  it('makes a specialist of every model the endpoint lists that is not registered and has a usable name', async () => {
    const registry = new SpecialistRegistry([{ name: 'sql-lora', version: '1', run: () => Promise.resolve({ summary: '', confidence: 1 }) }]);
    const found = await discoveredSpecialists(projectConfigSchema.parse({ models: { baseURL: server.baseURL } }), registry, silent, {});
    expect(found.map((specialist) => specialist.name)).toEqual(['python-lora']);
  });

  it('uses OPENAI_BASE_URL when the file names no endpoint, and nothing when discovery is off or there is no endpoint', async () => {
    const none = projectConfigSchema.parse({});
    expect((await discoveredSpecialists(none, new SpecialistRegistry(), silent, { OPENAI_BASE_URL: server.baseURL })).map((s) => s.name)).toEqual(['python-lora', 'sql-lora']);
    expect(await discoveredSpecialists(projectConfigSchema.parse({ models: { discover: false } }), new SpecialistRegistry(), silent, { OPENAI_BASE_URL: server.baseURL })).toEqual([]);
    expect(await discoveredSpecialists(none, new SpecialistRegistry(), silent, {})).toEqual([]);
  });

  it('logs an endpoint that cannot be asked and goes on without its models', async () => {
    const warnings: string[] = [];
    const found = await discoveredSpecialists(
      projectConfigSchema.parse({ models: { baseURL: 'http://127.0.0.1:9/v1' } }),
      new SpecialistRegistry(),
      { info: () => undefined, warn: (message) => warnings.push(message) },
      {},
    );
    expect(found).toEqual([]);
    expect(warnings).toEqual([expect.stringContaining('cannot list the endpoint models')]);
  });
});

describe('finding and reading the file', () => {
  it('finds the first tierflow.config.* in the directory, or none', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'tierflow-find-'));
    try {
      expect(findConfigFile(undefined, empty)).toBeNull();
      await writeFile(join(empty, 'tierflow.config.json'), '{}');
      await writeFile(join(empty, 'tierflow.config.mjs'), 'export default { routing: { x: ["sim"] } };');
      expect(findConfigFile(undefined, empty)).toBe(join(empty, 'tierflow.config.mjs'));
      expect((await loadConfig(undefined, empty)).config.routing).toEqual({ x: ['sim'] });
      expect((await loadConfig('tierflow.config.json', empty)).config).toEqual({ specialists: [], tools: [], interceptors: [] });
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  it('reads TypeScript, and names the file relative to the working directory in its problems', async () => {
    await writeFile(join(dir, 'tierflow.config.ts'), 'const routes: Record<string, string[]> = { code: ["sim"] };\nexport default { routing: routes, architect: { maxRevisions: -1 } };\n');
    await expect(readConfigFile(join(dir, 'tierflow.config.ts'), dir)).rejects.toMatchObject({ problems: ['tierflow.config.ts: architect.maxRevisions: Too small: expected number to be >=0'] });
  });
});
