import type { TierLogger } from '@tierflow/runtime';
import type { Tool, ToolSource } from '../tool.js';
import { toolPatternMatches, toolPatternMayMatchPrefix } from '../tool-pattern.js';
import type { McpServerConfig } from './mcp-config.js';
import { McpConnection, type McpToolInfo } from './mcp-connection.js';
import { toolResultFromMcp } from './mcp-content.js';

export interface McpServersOptions {
  /** The project file's `mcp` section (parsed with `mcpSectionSchema`): servers by name. */
  readonly servers: Readonly<Record<string, McpServerConfig>>;
  /** Where a server's `tokenEnv` is looked up. */
  readonly env: NodeJS.ProcessEnv;
  readonly log: TierLogger;
  /** The name the Fleet gives itself in `initialize`; `tierflow-fleet` unless given. */
  readonly clientName?: string;
  /**
   * The longest one tool call may run, 30 minutes unless given. The call's signal (the run's
   * cancellation or deadline) is what normally stops it; this only bounds a call nobody stops.
   */
  readonly callTimeoutMs?: number;
  /** The longest a server may take to start (and to list its tools), 30 s unless given. */
  readonly startTimeoutMs?: number;
}

const MCP_PREFIX = 'mcp:';

/**
 * The tools of the project's MCP servers, as `mcp:<server>/<tool>`: one of these per Fleet
 * process. A server starts on the first `tools()` that selects from it, once however many ask at
 * the same time, and again on the use after it died; `close()` stops them all.
 */
export class McpServers implements ToolSource {
  private readonly connections: ReadonlyMap<string, McpConnection>;

  constructor(options: McpServersOptions) {
    const connectionOptions = {
      env: options.env,
      log: options.log,
      clientName: options.clientName ?? 'tierflow-fleet',
      clientVersion: '0.1.0',
      callTimeoutMs: options.callTimeoutMs ?? 30 * 60_000,
      startTimeoutMs: options.startTimeoutMs ?? 30_000,
    };
    this.connections = new Map(Object.entries(options.servers).map(([name, config]) => [name, new McpConnection(name, config, connectionOptions)]));
  }

  /**
   * The MCP tools `patterns` select (patterns not starting with `mcp:` are function tools, not
   * these). Starts the servers they could select from; throws SpecialistUnavailableError naming
   * the server when one of them cannot start.
   */
  async tools(patterns: readonly string[], signal: AbortSignal): Promise<readonly Tool[]> {
    const selecting = patterns.filter((pattern) => pattern.startsWith(MCP_PREFIX));
    const needed = [...this.connections.values()].filter((connection) => selecting.some((pattern) => toolPatternMayMatchPrefix(pattern, prefixOf(connection.name))));
    const listed = await Promise.all(needed.map(async (connection) => ({ connection, tools: await connection.tools(signal) })));
    const tools: Tool[] = [];
    for (const { connection, tools: serverTools } of listed) {
      for (const info of serverTools) {
        const name = `${prefixOf(connection.name)}${info.name}`;
        if (selecting.some((pattern) => toolPatternMatches(pattern, name))) tools.push(mcpTool(connection, name, info));
      }
    }
    return tools;
  }

  /** Closes every client and stops every stdio server's process. Idempotent. */
  async close(): Promise<void> {
    await Promise.all([...this.connections.values()].map((connection) => connection.close()));
  }
}

function prefixOf(server: string): string {
  return `${MCP_PREFIX}${server}/`;
}

function mcpTool(connection: McpConnection, name: string, info: McpToolInfo): Tool {
  return {
    name,
    description: info.description,
    parameters: info.inputSchema,
    run: async (args, { signal }) => toolResultFromMcp(await connection.call(info.name, args, signal)),
  };
}
