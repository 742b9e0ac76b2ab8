/**
 * The Fleet tier of Tierflow: runs the specialist the Dispatcher names in `specialist_hint`,
 * places its artifacts inline or in Beads, and reports. Add your own specialist in a few lines:
 *
 * ```ts
 * import { defaultRegistry, defineSpecialist, startFleetWorker } from '@tierflow/fleet';
 * import { runtimeOptionsFromEnv } from '@tierflow/runtime';
 *
 * const registry = defaultRegistry(); // holds `sim`, the scriptable simulator
 * registry.register(
 *   defineSpecialist({
 *     name: 'python-lora',
 *     version: '1.0.0',
 *     run: async ({ objective }) => ({
 *       summary: `wrote ${objective}`,
 *       confidence: 0.9,
 *       artifacts: [{ artifact_type: 'code', content: 'def f(): ...' }],
 *     }),
 *   }),
 * );
 * const worker = await startFleetWorker({ runtime: runtimeOptionsFromEnv(), registry });
 * process.on('SIGTERM', () => void worker.close());
 * ```
 *
 * A specialist throws `TierflowError.retryable(…)` (or any Error) for a transient failure,
 * `TierflowError.permanent(…)` for a lasting one, and `SpecialistUnavailableError` to be routed
 * elsewhere.
 */
export { a2aSpecialist } from './a2a/a2a-specialist.js';
export type { A2aSpecialistOptions } from './a2a/a2a-specialist.js';
export { checkedSpecialist } from './checked-specialist.js';
export type { CheckedSpecialistOptions } from './checked-specialist.js';
export { agentIdentityOf, PROMPT_HASH, promptHashOf } from './agent-identity.js';
export { publishAgents } from './agent-registry.js';
export { codeRunnerSpecialist } from './code-runner/code-runner.js';
export { CODE_RUNNER_ERROR_TYPES } from './code-runner/grade.js';
export type { CodeRunnerErrorType } from './code-runner/grade.js';
export { codeRunnerOptionsSchema } from './code-runner/limits.js';
export type { CodeRunnerOptions } from './code-runner/limits.js';
export { codeRunnerTaskDataSchema } from './code-runner/task-data.js';
export type { CodeRunnerTask } from './code-runner/task-data.js';
export { fleetOptionsFromEnv, fleetEnvSchema } from './fleet-env.js';
export type { FleetProcessOptions } from './fleet-env.js';
export { fleetHandler } from './fleet-handler.js';
export type { FleetHandlerOptions } from './fleet-handler.js';
export { discoverModels } from './llm/discover-models.js';
export { llmPlanner } from './llm/llm-planner.js';
export type { LlmPlannerOptions } from './llm/llm-planner.js';
export { llmSpecialist } from './llm/llm-specialist.js';
export type { LlmSpecialistOptions } from './llm/llm-specialist.js';
export { endpointKey } from './llm/unreachable.js';
export { defaultRegistry, SpecialistRegistry } from './registry.js';
export { parseSimConfig, simConfigSchema } from './sim-config.js';
export type { SimConfig, SimConfigInput } from './sim-config.js';
export { SIM_SPECIALIST, simSpecialist } from './sim.js';
export { defineSpecialist, isSpecialistUnavailable, SPECIALIST_STATUSES, specialistNameSchema, SpecialistThrottledError, SpecialistUnavailableError } from './specialist.js';
export type { Acceptance, Specialist, SpecialistArtifact, SpecialistInput, SpecialistResult, SpecialistStatus, SpecialistUsageMeter, SpecialistUsageReservation } from './specialist.js';
export { FLEET_DEFAULT_TIMEOUT_MS, startFleetWorker } from './start-fleet.js';
export type { StartFleetOptions } from './start-fleet.js';
export { mcpSectionSchema, mcpServerSchema } from './tools/mcp/mcp-config.js';
export type { McpSection, McpServerConfig } from './tools/mcp/mcp-config.js';
export { McpServers } from './tools/mcp/mcp-servers.js';
export type { McpServersOptions } from './tools/mcp/mcp-servers.js';
export { toolPatternMatches } from './tools/tool-pattern.js';
export type { Tool, ToolCallContext, ToolResult, ToolSource } from './tools/tool.js';
export { functionTool, toolNameSchema } from './tools/function-tool.js';
export type { FunctionToolDefinition } from './tools/function-tool.js';
export { ProjectTools } from './tools/project-tools.js';
export { approvalQuestion } from './tools/tool-approval.js';
