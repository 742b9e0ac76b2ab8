import { isTierflowError } from '@tierflow/protocol';
import { connectReachable } from '@tierflow/runtime/admin';
import { runtimeOptionsFromEnv } from '@tierflow/runtime';
import { createServer, listen, serverOptionsFromEnv } from '@tierflow/server';
import { stopSignal } from '../dashboard.js';
import { EXIT, type CliIo } from '../io.js';

export interface ServeOptions {
  readonly host?: string;
  readonly port?: number;
}

/**
 * `tierflow serve [--host 127.0.0.1] [--port 8080]`: the web dashboard, the runs API, its OpenAPI
 * description, the A2A endpoint and Bull Board (read-only unless TIERFLOW_SERVE_QUEUE_ACTIONS=1),
 * until SIGINT or SIGTERM. Beyond loopback it needs TIERFLOW_API_TOKEN (exit 2 without); it
 * answers only to its own address and TIERFLOW_SERVE_ALLOWED_HOSTS. Exits 3 when Redis cannot be
 * reached at start.
 */
export async function serveCommand(flags: ServeOptions, io: CliIo, stop: Promise<unknown> = stopSignal()): Promise<number> {
  let options;
  try {
    options = serverOptionsFromEnv(process.env, flags);
  } catch (error) {
    if (!isTierflowError(error)) throw error;
    io.stderr(`${error.message}\n`);
    return EXIT.unusable;
  }
  const runtime = runtimeOptionsFromEnv();
  // A Redis it cannot use stops it here, in one line (exit 3), as it stops every client command;
  // once serving, a Redis that goes away makes requests answer 503 until it is back.
  (await connectReachable(runtime)).disconnect();
  const server = createServer(runtime, options);
  try {
    const { http, url } = await listen(server, options);
    io.stdout(
      `serving ${url} (dashboard: ${url}/, API: ${url}/api, OpenAPI: ${url}/openapi.json, A2A agent card: ${url}/.well-known/agent-card.json, queues: ${url}/queues${options.queueActions ? '' : ', read-only'})${options.token ? '; requests need the bearer token' : ''}\n`,
    );
    await stop;
    await new Promise<void>((resolve) => http.close(() => resolve()));
    return EXIT.ok;
  } finally {
    await server.close();
  }
}
