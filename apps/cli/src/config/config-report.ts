import { isSecretName, redactUrl, tierflowEnvSchema, type TierflowEnv } from '@tierflow/runtime/admin';
import { DEFAULT_EXPLORATION, routingObjectiveOf } from '@tierflow/dispatcher';
import type { LoadedConfig } from './config-file.js';
import { routingOptionsOf, type RoutingSection } from './routing-section.js';

/** Where a setting's value came from. */
export type SettingSource = 'env' | 'project file' | 'default' | 'unset' | '--config' | 'env (TIERFLOW_CONFIG)' | 'env (OPENAI_BASE_URL)' | 'found here';

/** One line of `tierflow config`: a setting, its value as it may be shown, and where it came from. */
export interface SettingRow {
  readonly name: string;
  readonly value: string;
  readonly from: SettingSource;
}

/** What the OpenAI client calls when neither the project file nor OPENAI_BASE_URL names an endpoint. */
const PUBLIC_ENDPOINT = 'https://api.openai.com/v1';

/**
 * The resolved configuration, setting by setting: the project file and where it was found, every
 * variable of the runtime (set, defaulted or unset), then what the project file decides. No value
 * of a secret is shown, and no password of a URL. Pure.
 */
export function configRows(env: NodeJS.ProcessEnv, resolved: TierflowEnv, loaded: LoadedConfig, fileFrom: SettingSource): SettingRow[] {
  const isSet = (name: string): boolean => env[name] !== undefined && env[name] !== '';
  const variables = Object.keys(tierflowEnvSchema.shape).map((name): SettingRow => {
    const value = (resolved as Readonly<Record<string, unknown>>)[name];
    if (value === undefined) return { name, value: '-', from: 'unset' };
    const text = typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
    return { name, value: shown(name, text), from: isSet(name) ? 'env' : 'default' };
  });
  return [{ name: 'project file', value: loaded.file ?? 'none', from: loaded.file === null ? 'default' : fileFrom }, ...variables, ...projectRows(loaded, resolved)];
}

/** What the project file decides: the model endpoint, the specialists, the budget and the rest it sets. */
function projectRows(loaded: LoadedConfig, resolved: TierflowEnv): SettingRow[] {
  const { config } = loaded;
  const endpoint: SettingRow = config.models?.baseURL
    ? { name: 'model endpoint', value: shownUrl(config.models.baseURL), from: 'project file' }
    : resolved.OPENAI_BASE_URL
      ? { name: 'model endpoint', value: shownUrl(resolved.OPENAI_BASE_URL), from: 'env (OPENAI_BASE_URL)' }
      : { name: 'model endpoint', value: PUBLIC_ENDPOINT, from: 'default' };
  const specialists = [...config.specialists.map(specialistText), 'sim (built in)'];
  const fromFile = (name: string, value: unknown): SettingRow[] => (value === undefined ? [] : [{ name, value: JSON.stringify(value), from: 'project file' }]);
  return [
    endpoint,
    { name: 'specialists', value: specialists.join(', '), from: config.specialists.length > 0 ? 'project file' : 'default' },
    ...fromFile('models.prices', config.models?.prices),
    ...routingRows(config.routing),
    ...fromFile('budget', config.budget),
    ...fromFile('boundaries', config.boundaries),
    ...fromFile('history', config.history),
    ...(config.architect?.planner === undefined ? [] : [{ name: 'architect.planner', value: plannerText(config.architect.planner), from: 'project file' as const }]),
    ...(config.dispatcher?.decomposer === undefined ? [] : [{ name: 'dispatcher.decomposer', value: plannerText(config.dispatcher.decomposer), from: 'project file' as const }]),
    ...(config.interceptors.length === 0
      ? []
      : [{ name: 'interceptors', value: config.interceptors.map((entry) => ('kind' in entry ? entry.kind : entry.name)).join(', '), from: 'project file' as const }]),
    // Each webhook by its URL (its secrets hidden) and events; its secret by the variable's name alone.
    ...(config.notify === undefined || config.notify.length === 0
      ? []
      : [
          {
            name: 'notify',
            value: config.notify.map((entry) => `${shownUrl(entry.url)} (${entry.events?.join(', ') ?? 'all events'}; secret in ${entry.secretEnv})`).join(', '),
            from: 'project file' as const,
          },
        ]),
  ];
}

/** The routes the file gives, then how the Dispatcher chooses among them: each setting the file's, or the default. */
function routingRows(section: RoutingSection | undefined): SettingRow[] {
  const options = routingOptionsOf(section ?? {});
  const objective = routingObjectiveOf(options.routingObjective);
  const from = (set: boolean): SettingSource => (set ? 'project file' : 'default');
  return [
    ...(options.routing === undefined ? [] : [{ name: 'routing', value: JSON.stringify(options.routing), from: 'project file' as const }]),
    { name: 'routing.mode', value: options.routingMode ?? 'fixed', from: from(options.routingMode !== undefined) },
    { name: 'routing.objective', value: objective.optimize === 'success' ? 'success' : `${objective.optimize}, weight ${objective.weight}`, from: from(options.routingObjective !== undefined) },
    { name: 'routing.exploration', value: String(options.exploration ?? DEFAULT_EXPLORATION), from: from(options.exploration !== undefined) },
  ];
}

/** `writer (llm)`: a declared specialist by its name and kind; one given as an object by its name. */
function specialistText(entry: LoadedConfig['config']['specialists'][number]): string {
  if ('run' in entry && typeof entry.run === 'function') return `${entry.name} (object)`;
  if (!('kind' in entry)) return 'a specialist';
  if (entry.kind === 'module') return `${entry.module} (module)`;
  return `${'name' in entry && typeof entry.name === 'string' ? entry.name : entry.kind} (${entry.kind})`;
}

function plannerText(planner: NonNullable<NonNullable<LoadedConfig['config']['architect']>['planner']>): string {
  if (typeof planner === 'function') return 'a function';
  return planner.kind === 'llm' ? `llm (${planner.model})` : `module ${planner.module}`;
}

/** A value as `tierflow config` may print it: a secret's not at all, a URL's without its password. */
function shown(name: string, value: string): string {
  if (isSecretName(name)) return '(set, not shown)';
  return /URL/.test(name) ? shownUrl(value) : value;
}

/**
 * A URL without its secrets: a Redis URL as the runtime's logs show it; an HTTP one with its path
 * (an endpoint's `/v1` says which API) but its password and query hidden.
 */
function shownUrl(value: string): string {
  if (!/^https?:/i.test(value) || !URL.canParse(value)) return redactUrl(value);
  const url = new URL(value);
  const user = url.password ? `${url.username}:***@` : url.username ? '***@' : '';
  return `${url.protocol}//${user}${url.host}${url.pathname}${url.search ? '?***' : ''}${url.hash ? '#***' : ''}`;
}
