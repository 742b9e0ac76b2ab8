import { spawn } from 'node:child_process';
import { runtimeOptionsFromEnv } from '@tierflow/runtime';
import { createServer, listen, serverOptionsFromEnv, type ServerOptionsInput } from '@tierflow/server';

/** A dashboard (and the runs API) served from this process. */
export interface Dashboard {
  /** `http://127.0.0.1:<port>`, the port it got when asked for 0. */
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * Serves the dashboard and the API of the deployment `env` describes (REDIS_URL, TIERFLOW_PREFIX,
 * TIERFLOW_SERVE_*), as `tierflow serve` does.
 *
 * @throws ConfigError when the options or the environment are not usable (a host beyond loopback without a token, say).
 */
export async function startDashboard(env: NodeJS.ProcessEnv, flags: ServerOptionsInput): Promise<Dashboard> {
  const options = serverOptionsFromEnv(env, flags);
  const server = createServer(runtimeOptionsFromEnv(env), options);
  try {
    const { http, url } = await listen(server, options);
    return {
      url,
      stop: async () => {
        const closed = new Promise<void>((resolve) => http.close(() => resolve()));
        // A dashboard left open holds its live event stream: without this the close would wait on it for ever.
        if ('closeAllConnections' in http) http.closeAllConnections();
        await closed;
        await server.close();
      },
    };
  } catch (error) {
    await server.close();
    throw error;
  }
}

/** Resolves with the first SIGINT or SIGTERM this process gets from now on. */
export function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve(signal));
  });
}

/**
 * Opens `url` in the desktop's browser (`open` on macOS, `xdg-open` elsewhere), when there is
 * one. Nothing here fails the command: without a browser, the URL printed is enough.
 */
export function openInBrowser(url: string): void {
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? null : 'xdg-open';
  if (opener === null) return;
  const child = spawn(opener, [url], { stdio: 'ignore', detached: true });
  child.once('error', () => undefined);
  child.unref();
}
