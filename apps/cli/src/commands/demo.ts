import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectReachable, readTierflowVars, redactUrl } from '@tierflow/runtime/admin';
import { INPUT_REQUIRED, resolveRuntimeOptions, runtimeOptionsFromEnv, TierflowClient } from '@tierflow/runtime';
import { setTimeout as sleep } from 'node:timers/promises';
import { findRedisServerBinary, startRedisServer } from '@tierflow/testing';
import { Redis } from 'ioredis';
import { projectEnv } from '../config/project-env.js';
import { startDashboard, stopSignal } from '../dashboard.js';
import { EXIT, type CliIo } from '../io.js';
import { renderTree } from '../render-tree.js';
import type { TierProcesses } from '../spawn-tiers.js';
import { ALL_TIERS } from '../tiers.js';
import { runToolUseExample, startTiers } from './demo-tools.js';

const EXAMPLES = fileURLToPath(new URL('../../../../examples', import.meta.url));

interface DemoRedis {
  readonly url: string;
  readonly mine: boolean;
  stop(): Promise<void>;
}

/** Redis at REDIS_URL, else a private redis-server on a free port, else null (with advice printed). */
async function demoRedis(io: CliIo): Promise<DemoRedis | null> {
  // Set: the user's Redis, checked like any setting; unset: a private one (the schema's default is for the tiers).
  const url = process.env.REDIS_URL ? readTierflowVars(process.env, ['REDIS_URL']).REDIS_URL : undefined;
  if (url) {
    // One it cannot use stops the demo here, in one line (exit 3), before any worker waits on it.
    (await connectReachable(runtimeOptionsFromEnv(process.env))).disconnect();
    return { url, mine: false, stop: () => Promise.resolve() };
  }
  if (!findRedisServerBinary()) {
    io.stderr(
      'The demo needs Redis 7: set REDIS_URL (e.g. redis://127.0.0.1:6379, or `docker compose -f infra/docker-compose.yml up -d`),\n' +
        'or install redis-server (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis) and run the demo again.\n',
    );
    return null;
  }
  const server = await startRedisServer();
  return { url: server.url, mine: true, stop: () => server.stop() };
}

export interface DemoOptions {
  readonly config?: string;
  /** Keep the workers up and serve the dashboard once the runs end, until SIGINT or SIGTERM. */
  readonly keep?: boolean;
  /** With `keep`: the dashboard's port on 127.0.0.1 (0: any free one). */
  readonly port?: number;
}

/**
 * `tierflow demo [dir]`: starts the four tiers as separate processes, enqueues every objective
 * in `dir` (default: the repository's examples/), prints each run's outcome and tree, and stops
 * everything it started; with `keep`, only once the runs have been browsed (SIGINT or SIGTERM).
 * With the repository's examples and no project file, it then runs the tool-use example
 * (examples/tool-use: an LLM specialist calling tools, against a scripted model) on workers of its own.
 */
export async function demoCommand(dir: string | undefined, options: DemoOptions, io: CliIo): Promise<number> {
  // The workers get this environment, with a prefix of the demo's own: a bad variable or
  // configuration stops the demo here (exit 2), before it starts Redis or a worker.
  for (const tier of ALL_TIERS) runtimeOptionsFromEnv({ ...process.env, TIERFLOW_PREFIX: '{tierflow-demo}' }, { tier });
  const env = await projectEnv(options.config ?? readTierflowVars(process.env, ['TIERFLOW_CONFIG']).TIERFLOW_CONFIG, process.env);
  const folder = dir ?? EXAMPLES;
  const files = (await readdir(folder)).filter((file) => file.endsWith('.json')).sort();
  if (files.length === 0) {
    io.stderr(`no objective files (*.json) in ${folder}\n`);
    return EXIT.unusable;
  }
  const redis = await demoRedis(io);
  if (!redis) return EXIT.unusable;
  // A prefix of its own: workers already serving this Redis must not take the demo's jobs.
  const prefix = `{tierflow-demo-${randomBytes(4).toString('hex')}}`;
  // The tool-use example's workers, configured by its own project file, take their work under another.
  const toolsPrefix = resolve(folder) === EXAMPLES && !env.TIERFLOW_CONFIG ? `{tierflow-demo-tools-${randomBytes(4).toString('hex')}}` : null;
  io.stdout(`Redis ${redis.mine ? `(private, ${redis.url})` : redactUrl(redis.url)}, prefix ${prefix}\n`);
  const logs: string[] = [];
  if (env.TIERFLOW_CONFIG) io.stdout(`Configured by ${env.TIERFLOW_CONFIG}\n`);
  let tiers: TierProcesses | undefined;
  const client = new TierflowClient(resolveRuntimeOptions({ redisUrl: redis.url, prefix }));
  try {
    tiers = await startTiers({ ...env, REDIS_URL: redis.url, TIERFLOW_PREFIX: prefix }, (tier, line) => logs.push(`${tier} | ${line}`));
    const started = tiers;
    io.stdout(`Started ${ALL_TIERS.map((tier) => `${tier} (pid ${started.children.get(tier)?.pid})`).join(', ')}\n\n`);

    const runs = await Promise.all(files.map(async (file) => ({ file, id: await client.enqueue(JSON.parse(await readFile(join(folder, file), 'utf8')) as unknown) })));
    const answers = answerQuestions(client, runs, io);
    const outcomes = await Promise.all(runs.map((run) => client.waitForResult(run.id, { timeoutMs: 60_000 }))).finally(() => answers.stop());
    await answers.done;
    for (const [index, run] of runs.entries()) {
      const outcome = outcomes[index]!;
      io.stdout(`== ${basename(run.file)}: ${outcome.payload.status} (confidence ${outcome.payload.confidence.toFixed(2)})\n`);
      io.stdout(`   ${outcome.payload.summary}\n`);
      const tree = await client.tree(run.id);
      if (tree) io.stdout(`${renderTree(tree).replace(/^/gm, '   ')}\n`);
    }
    io.stdout(`Ran ${runs.length} objectives through four worker processes.\n`);
    if (toolsPrefix) await runToolUseExample(env, redis.url, toolsPrefix, (tier, line) => logs.push(`tool-use ${tier} | ${line}`), io);
    if (options.keep) await keepUp({ ...env, REDIS_URL: redis.url, TIERFLOW_PREFIX: prefix }, options.port ?? 8080, io);
    return EXIT.ok;
  } catch (error) {
    io.stderr(`demo failed: ${(error as Error).message}\n--- worker output ---\n${logs.join('\n')}\n`);
    return EXIT.invalid;
  } finally {
    await client.close();
    await tiers?.stop();
    if (!redis.mine) for (const each of toolsPrefix ? [prefix, toolsPrefix] : [prefix]) await deleteKeys(redis.url, each);
    await redis.stop();
  }
}

/** Serves the dashboard of the demo's deployment (its Redis, its prefix) on 127.0.0.1 until SIGINT or SIGTERM. */
async function keepUp(env: NodeJS.ProcessEnv, port: number, io: CliIo): Promise<void> {
  const stopped = stopSignal();
  const dashboard = await startDashboard(env, { host: '127.0.0.1', port });
  try {
    io.stdout(`\nThe runs and the workers stay up: browse them at ${dashboard.url}/ (Ctrl-C stops everything).\n`);
    await stopped;
  } finally {
    await dashboard.stop();
  }
}

/** What the demo says when a run asks a person something: it stands in for that person. */
const DEMO_ANSWER = 'Go with the simplest choice (the demo answers in place of a person)';

/**
 * Stands in for the person a run asks (docs/protocol.md#clarification): watches the runs and
 * answers each question as it comes, saying so, until stopped.
 */
function answerQuestions(client: TierflowClient, runs: readonly { file: string; id: string }[], io: CliIo): { done: Promise<void>; stop: () => void } {
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      for (const run of runs) {
        const tree = await client.tree(run.id);
        const open = tree?.status === INPUT_REQUIRED ? (tree.questions ?? []).filter((question) => question.answer === null) : [];
        if (open.length === 0) continue;
        for (const question of open) io.stdout(`${basename(run.file)} asks: ${question.question}\n  answering: ${DEMO_ANSWER}\n`);
        await client.answer(run.id, DEMO_ANSWER).catch((error: unknown) => io.stderr(`cannot answer ${run.id}: ${(error as Error).message}\n`));
      }
      await sleep(250);
    }
  })();
  return {
    done,
    stop: () => {
      stopped = true;
    },
  };
}

/** Removes what the demo wrote to a Redis it did not start. */
async function deleteKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
