import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { TierflowClient } from '@tierflow/runtime';
import { registerOutcomeResource } from './mcp-resources.js';
import { registerRunTools } from './mcp-tools.js';

export interface McpServerOptions {
  /** Jaeger's web UI, for run_status's trace link; no link when left out. */
  readonly jaegerUrl?: string;
}

const INSTRUCTIONS =
  'Tierflow runs objectives through four tiers of agents. Start one with enqueue_objective, then poll run_status until its status is final ' +
  '(success, failed, partial, cancelled, …); when it reads input_required, the run asks a person: answer with answer_questions. ' +
  'The whole outcome is the resource tierflow://runs/{root_id}/outcome.';

/**
 * The Model Context Protocol face of a deployment: its runs as tools (enqueue, status, tree, answer,
 * cancel, list) and each run's outcome as a resource. It keeps nothing of its own: every call goes
 * to the client, so one may be built per request or per stdio session.
 */
export function tierflowMcpServer(client: TierflowClient, options: McpServerOptions = {}): McpServer {
  const server = new McpServer({ name: 'tierflow', title: 'Tierflow', version: '1.0.0' }, { instructions: INSTRUCTIONS });
  registerRunTools(server, { client, jaegerUrl: options.jaegerUrl ?? null });
  registerOutcomeResource(server, client);
  return server;
}
