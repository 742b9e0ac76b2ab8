import type { RuntimeOptions, TierLogger } from '@tierflow/runtime';
import { createServer, listen, resolveServerOptions, type ServerOptionsInput, type TierflowServer } from '@tierflow/server';

/** A `tierflow serve` server running in the test's process, on a free port. */
export interface Served {
  readonly server: TierflowServer;
  readonly url: string;
  /** Stops listening, then closes the server's connections. */
  close(): Promise<void>;
}

export const SILENT_LOG: TierLogger = { info: () => undefined, warn: () => undefined };

/** Serves `runtime`'s deployment as `tierflow serve` does, on 127.0.0.1 and a free port. */
export async function serveDeployment(runtime: RuntimeOptions, options: Omit<ServerOptionsInput, 'port'> = {}, log: TierLogger = SILENT_LOG): Promise<Served> {
  const resolved = resolveServerOptions({ ...options, port: 0 });
  const server = createServer(runtime, resolved, log);
  const { http, url } = await listen(server, resolved);
  return {
    server,
    url,
    close: async () => {
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await server.close();
    },
  };
}
