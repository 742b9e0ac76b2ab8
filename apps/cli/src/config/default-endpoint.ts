import { readTierflowVars } from '@tierflow/runtime/admin';
import type { ProjectConfig } from './config-schema.js';

/** Where the `openai` client sends requests when neither the project file nor OPENAI_BASE_URL names an endpoint. */
export const PUBLIC_DEFAULT_ENDPOINT = 'https://api.openai.com/v1';

type Entry = ProjectConfig['specialists'][number];
type Planner = NonNullable<NonNullable<ProjectConfig['architect']>['planner']>;

function llmEntryWithoutEndpoint(entry: Entry | Planner | undefined): entry is { kind: 'llm'; baseURL?: undefined } & (Entry | Planner) {
  return typeof entry === 'object' && entry !== null && 'kind' in entry && entry.kind === 'llm' && !('baseURL' in entry && entry.baseURL !== undefined);
}

/**
 * The model callers the file declares that name no endpoint, when neither the file's `models`
 * section nor OPENAI_BASE_URL gives one: they would call {@link PUBLIC_DEFAULT_ENDPOINT}. A
 * specialist or planner made in code is not looked into. Pure.
 */
export function defaultEndpointCallers(config: ProjectConfig, env: NodeJS.ProcessEnv): string[] {
  if (config.models?.baseURL !== undefined || readTierflowVars(env, ['OPENAI_BASE_URL']).OPENAI_BASE_URL !== undefined) return [];
  const specialists = config.specialists.flatMap((entry) => (llmEntryWithoutEndpoint(entry) && 'name' in entry ? [`specialist ${entry.name}`] : []));
  const planners = [...(llmEntryWithoutEndpoint(config.architect?.planner) ? ['architect.planner'] : []), ...(llmEntryWithoutEndpoint(config.dispatcher?.decomposer) ? ['dispatcher.decomposer'] : [])];
  return [...specialists, ...planners];
}

/** The one line `up` prints when some model caller has no endpoint, or null when all have one. Pure. */
export function defaultEndpointWarning(callers: readonly string[]): string | null {
  if (callers.length === 0) return null;
  return `warning: no model endpoint configured (no baseURL in the project file, no OPENAI_BASE_URL): ${callers.join(', ')} will call the public default endpoint, ${PUBLIC_DEFAULT_ENDPOINT}`;
}
