import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { readTierflowVars } from '@tierflow/runtime/admin';
import { runtimeOptionsFromEnv, TierflowClient } from '@tierflow/runtime';
import { SERVER_DEFAULTS, tierflowMcpServer } from '@tierflow/server';
import { stopSignal } from '../dashboard.js';
import { EXIT, type CliIo } from '../io.js';

/** Where the protocol's messages come in and go out: the process's own standard input and output, unless a test passes others. */
export interface McpStreams {
  readonly stdin: Readable;
  readonly stdout: Writable;
}

/**
 * `tierflow mcp`: the deployment's runs to an MCP client that started this process (a desktop
 * assistant, an IDE, another agent), over stdio: the tools and the outcome resource of
 * `tierflow serve`'s /mcp. Standard output carries protocol messages and nothing else; anything
 * said goes to standard error. Ends when standard input closes (the client is gone), or on SIGINT
 * or SIGTERM. Exits 3 when Redis cannot be reached at start.
 */
export async function mcpCommand(io: CliIo, streams: McpStreams = { stdin: process.stdin, stdout: process.stdout }, stop: Promise<unknown> = stopSignal()): Promise<number> {
  const runtime = runtimeOptionsFromEnv();
  // For run_status's trace links, from where `tierflow serve` takes them; none of serve's other settings matter here.
  const { JAEGER_URL: jaegerUrl } = readTierflowVars(process.env, ['JAEGER_URL']);
  const client = await TierflowClient.connect(runtime);
  try {
    const server = tierflowMcpServer(client, { jaegerUrl: jaegerUrl ?? SERVER_DEFAULTS.jaegerUrl });
    const ended = new Promise<void>((resolve) => {
      streams.stdin.once('end', resolve);
      streams.stdin.once('close', resolve);
      server.server.onclose = resolve;
    });
    await server.connect(new StdioServerTransport(streams.stdin, streams.stdout));
    io.stderr(`tierflow mcp: serving the runs of ${runtime.prefix} over stdio\n`);
    await Promise.race([ended, stop]);
    await server.close();
    return EXIT.ok;
  } finally {
    await client.close();
  }
}
