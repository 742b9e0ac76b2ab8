import type { ModelLimitOptions } from '@tierflow/runtime/policy';
import { endpointKey } from '@tierflow/fleet';
import { ConfigError } from '@tierflow/runtime';
import { readTierflowVars } from '@tierflow/runtime/admin';
import type { ProjectConfig } from './config-schema.js';
import { defined } from './defined.js';

/** `models.limits` as the file gives it: a model's name, or an endpoint's base URL, to its limits. */
export type LimitsTable = Readonly<Record<string, Omit<ModelLimitOptions, 'windowMs' | 'sharedBy'>>>;

/**
 * The limits a model's calls are held to (docs/operations.md#model-limits), pure: the model's own
 * entry, else its endpoint's (`baseURL`), which every model served there shares (a vLLM server's
 * LoRA adapters and its `--max-num-seqs`), kept under the endpoint's name; none without either.
 *
 * @throws ConfigError when the model and its endpoint both have an entry: which one holds would be a guess.
 */
export function limitsOf(model: string, baseURL: string | undefined, table: LimitsTable | undefined): { limits?: ModelLimitOptions } {
  if (table === undefined) return {};
  const own = Object.hasOwn(table, model) ? table[model] : undefined;
  const endpoint = baseURL === undefined ? null : endpointKey(baseURL);
  const shared = endpoint === null ? undefined : Object.keys(table).find((key) => endpointKey(key) === endpoint);
  if (own !== undefined && shared !== undefined) {
    throw new ConfigError([`models.limits: ${model} has limits of its own and so has its endpoint ${shared}: keep one of them`]);
  }
  if (own !== undefined) return { limits: defined(own) };
  if (shared !== undefined && endpoint !== null) return { limits: { ...defined(table[shared]!), sharedBy: endpoint } };
  return {};
}

/** The endpoint a client without a base URL of its own calls (the `openai` client's fallback). */
export function defaultBaseURL(env: NodeJS.ProcessEnv): string | undefined {
  return readTierflowVars(env, ['OPENAI_BASE_URL']).OPENAI_BASE_URL;
}

/**
 * What {@link limitsOf} would refuse when the workers build the file's LLM specialists and
 * planners, found without building them (`tierflow config`): one line per model whose entry
 * conflicts with its endpoint's. Models found at run time (`models.discover`) are not known here.
 */
export function limitProblems(config: ProjectConfig, env: NodeJS.ProcessEnv): string[] {
  const table = config.models?.limits;
  if (table === undefined) return [];
  const planners = [config.architect?.planner, config.dispatcher?.decomposer].flatMap((entry) =>
    typeof entry === 'object' && entry.kind === 'llm' ? [{ model: entry.model, baseURL: entry.baseURL }] : [],
  );
  const specialists = config.specialists.flatMap((entry) => ('kind' in entry && entry.kind === 'llm' ? [{ model: entry.model ?? entry.name, baseURL: entry.baseURL }] : []));
  const problems = new Set<string>();
  for (const { model, baseURL } of [...specialists, ...planners]) {
    try {
      limitsOf(model, baseURL ?? config.models?.baseURL ?? defaultBaseURL(env), table);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      for (const problem of error.problems) problems.add(problem);
    }
  }
  return [...problems];
}
