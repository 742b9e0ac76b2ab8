import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { waitFor } from '@tierflow/testing';
import { awaitTracked, type BenchHalf } from './bench-half.js';
import { SHAPE_TIERS } from './bullmq-jobs.js';
import { restateServerBinary } from './restate-install.js';

const WORKER = fileURLToPath(new URL('./restate-worker.js', import.meta.url));

/**
 * The durable-execution half: a Restate server (its defaults, one node, its own storage in a
 * temporary directory, listening on Unix sockets only) and one handler process per tier, each a
 * service that calls the one below through Restate. A root is one call of the Monitor's service
 * at the ingress, answered when the whole tree has run. The server's CPU is counted as the
 * broker's (Redis's on the other halves), the handlers' as the workers'.
 */
export async function startRestateShape(): Promise<BenchHalf> {
  const dir = mkdtempSync(join(tmpdir(), 'tierflow-bench-restate-'));
  const logs: string[] = [];
  const started: ChildProcess[] = [];
  const exited = new Set<ChildProcess>();
  const launch = (label: string, command: string, args: readonly string[], env: NodeJS.ProcessEnv, onLine: (line: string) => void = () => undefined): ChildProcess => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        logs.push(`${label} | ${line}`);
        onLine(line);
      });
    }
    child.once('exit', () => exited.add(child));
    started.push(child);
    return child;
  };
  const socket = (name: string): string => join(dir, 'bench', `${name}.sock`);
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const stop = async (): Promise<void> => {
    agent.destroy();
    await Promise.all(
      started.map(async (child) => {
        if (exited.has(child)) return;
        const gone = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await gone;
      }),
    );
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    const server = launch('restate', restateServerBinary(), ['--base-dir', dir, '--node-name', 'bench', '--listen-mode', 'unix', '--no-logo'], {
      RESTATE_LOG_FILTER: 'warn',
      // Usage reports would go nowhere: nothing outside this machine is reached.
      RESTATE_DISABLE_TELEMETRY: 'true',
    });
    const ports = new Map<string, number>();
    const handlers = SHAPE_TIERS.map((tier) =>
      launch(tier, process.execPath, [WORKER, tier], {}, (line) => {
        const ready = /^ready (\d+)$/.exec(line);
        if (ready) ports.set(tier, Number(ready[1]));
      }),
    );
    const failed = (): boolean => exited.size > 0;
    await waitFor(() => (ports.size === SHAPE_TIERS.length && existsSync(socket('admin')) && existsSync(socket('ingress'))) || failed(), {
      timeoutMs: 60_000,
      description: 'the Restate server and four handler processes',
    });
    if (failed()) throw new Error('a Restate process exited');
    for (const port of ports.values()) {
      await callUntilAnswered(socket('admin'), agent, '/deployments', { uri: `http://127.0.0.1:${port}` });
    }
    const calls = new Map<string, Promise<void>>();
    return {
      redisUrls: [],
      brokerPids: [server.pid!],
      workerPids: handlers.map((handler) => handler.pid!),
      enqueue() {
        const id = randomUUID();
        const call = post(socket('ingress'), agent, '/monitor/run', {}).then((reply) => {
          if ((reply as { ok?: unknown }).ok !== true) throw new Error(`root ${id} answered ${JSON.stringify(reply)}`);
        });
        call.catch(() => undefined);
        calls.set(id, call);
        return Promise.resolve(id);
      },
      finished: (id, timeoutMs) => awaitTracked(calls, id, timeoutMs),
      stop,
    };
  } catch (error) {
    await stop();
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${logs.slice(-40).join('\n')}`, { cause: error });
  }
}

/** A POST of JSON over a Unix socket, resolving with the JSON answer; an HTTP error status rejects. */
function post(socketPath: string, agent: Agent, path: string, body: unknown): Promise<unknown> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, agent, path, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if ((res.statusCode ?? 500) >= 300) reject(new Error(`${path} answered ${res.statusCode}: ${text.slice(0, 300)}`));
        else resolve(text === '' ? null : (JSON.parse(text) as unknown));
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** Registers a deployment, again while the server is still starting (its admin API answers 5xx until it is ready). */
async function callUntilAnswered(socketPath: string, agent: Agent, path: string, body: unknown): Promise<void> {
  await waitFor(() => post(socketPath, agent, path, body).then(() => true), { timeoutMs: 30_000, description: `the Restate admin API to take ${path}` });
}
