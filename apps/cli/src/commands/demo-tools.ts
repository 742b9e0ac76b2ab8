import { TierflowError, type TierSlug } from '@tierflow/protocol';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cellOf, connectReachable, readNodeView } from '@tierflow/runtime/admin';
import { resolveRuntimeOptions, TierflowClient, type RunNode } from '@tierflow/runtime';
import { waitFor } from '@tierflow/testing';
import type { CliIo } from '../io.js';
import { renderNode } from '../render-node.js';
import { renderTree } from '../render-tree.js';
import { spawnTiers, type TierProcesses } from '../spawn-tiers.js';
import { ALL_TIERS } from '../tiers.js';

/** The tool-use example (examples/tool-use): its project file, objective, MCP server and scripted model. */
export const TOOL_USE_EXAMPLE = fileURLToPath(new URL('../../../../examples/tool-use/', import.meta.url));

/** What examples/tool-use/scripted-model.js exports: plain JavaScript, so it is typed here. */
interface ScriptedModelModule {
  readonly startScriptedModel: () => Promise<{ readonly url: string; close(): Promise<void> }>;
}

/**
 * Four tier processes on `env`, once each says it is ready.
 *
 * @throws TierflowError (`worker_exited`) when one exits while starting; the error of waitFor after 30 s.
 */
export async function startTiers(env: NodeJS.ProcessEnv, onLine: (tier: TierSlug, line: string) => void): Promise<TierProcesses> {
  const ready = new Set<TierSlug>();
  const tiers = spawnTiers(env, (tier, line) => {
    onLine(tier, line);
    if (line.includes('worker ready')) ready.add(tier);
  });
  try {
    await waitFor(() => ready.size === ALL_TIERS.length || [...tiers.children.values()].some((child) => child.exitCode !== null), {
      timeoutMs: 30_000,
      description: 'the four tier workers to start',
    });
    if (ready.size !== ALL_TIERS.length) throw new TierflowError('a tier worker exited while starting', { code: 'worker_exited' });
    return tiers;
  } catch (error) {
    await tiers.stop();
    throw error;
  }
}

/**
 * The tool-use example, as `tierflow demo` runs it after the others: the scripted model started
 * in-process, four workers configured by the example's project file on their own `prefix`, the
 * objective run, then its outcome, its tree and the tool calls of its leaf printed (as `tierflow
 * inspect` shows them). Stops what it started, however it ends.
 *
 * @throws whatever stopped the run: a worker that would not start, an outcome that never came.
 */
export async function runToolUseExample(env: NodeJS.ProcessEnv, redisUrl: string, prefix: string, onLine: (tier: TierSlug, line: string) => void, io: CliIo): Promise<void> {
  const { startScriptedModel } = (await import(pathToFileURL(join(TOOL_USE_EXAMPLE, 'scripted-model.js')).href)) as ScriptedModelModule;
  const model = await startScriptedModel();
  try {
    const config = join(TOOL_USE_EXAMPLE, 'tierflow.config.ts');
    io.stdout(`\nThe tool-use example (examples/tool-use): an LLM specialist calling a function tool and an MCP server's tools, its model scripted at ${model.url}\n`);
    const tiers = await startTiers({ ...env, REDIS_URL: redisUrl, TIERFLOW_PREFIX: prefix, TIERFLOW_CONFIG: config, OPENAI_BASE_URL: `${model.url}/v1`, OPENAI_API_KEY: 'demo' }, onLine);
    const runtime = resolveRuntimeOptions({ redisUrl, prefix });
    const client = new TierflowClient(runtime);
    try {
      const id = await client.enqueue(JSON.parse(await readFile(join(TOOL_USE_EXAMPLE, 'objective.json'), 'utf8')) as unknown);
      const { payload } = await client.waitForResult(id, { timeoutMs: 60_000 });
      io.stdout(`== tool-use/objective.json: ${payload.status} (confidence ${payload.confidence.toFixed(2)})\n   ${payload.summary}\n`);
      const tree = await client.tree(id);
      if (!tree) return;
      io.stdout(`${renderTree(tree).replace(/^/gm, '   ')}\n`);
      for (const leaf of leavesOf(tree)) io.stdout(await leafLines(runtime, leaf.id));
    } finally {
      await client.close();
      await tiers.stop();
    }
  } finally {
    await model.close();
  }
}

/** A leaf's answer, and its "tool calls" section as `tierflow inspect` shows it (a line saying so when it made none), indented. */
async function leafLines(runtime: ReturnType<typeof resolveRuntimeOptions>, nodeId: string): Promise<string> {
  const redis = await connectReachable(runtime);
  try {
    const view = await readNodeView(redis, cellOf(runtime, nodeId).prefix, nodeId, runtime.signing);
    const shown = view ? renderNode(view) : '';
    const at = shown.indexOf('tool calls (');
    const section = at < 0 ? 'no tool calls recorded\n' : shown.slice(at);
    const answer = view?.outcome?.summary ? `     answered: ${view.outcome.summary.replace(/\s+/g, ' ')}\n` : '';
    return `   ${view?.specialist ?? 'the leaf'} (tierflow inspect ${nodeId}):\n${answer}${section.replace(/^(?=.)/gm, '     ')}`;
  } finally {
    redis.disconnect();
  }
}

function leavesOf(node: RunNode): RunNode[] {
  return node.children.length === 0 ? [node] : node.children.flatMap(leavesOf);
}
