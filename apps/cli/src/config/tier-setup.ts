import {
  a2aSpecialist,
  checkedSpecialist,
  codeRunnerSpecialist,
  defineSpecialist,
  discoverModels,
  functionTool,
  McpServers,
  ProjectTools,
  simSpecialist,
  llmPlanner,
  llmSpecialist,
  specialistNameSchema,
  type Specialist,
  type SpecialistRegistry,
} from '@tierflow/fleet';
import type { ModelPrice } from '@tierflow/core';
import { isTierflowError, type Budget } from '@tierflow/protocol';
import type { AgentIdentity } from '@tierflow/protocol';
import { ConfigError, consoleLogger, deploymentIdFromEnv, type HandoffInterceptor, type NotifyOptionsInput, type TierLogger } from '@tierflow/runtime';
import { defined } from './defined.js';
import { defaultBaseURL, limitsOf } from './limits-of.js';
import { evidenceGrades, interceptorProblems, toneIsolation, type Isolate, type Planner } from '@tierflow/runtime/policy';
import { dirname, resolve } from 'node:path';
import { importModule, shownPath, type LoadedConfig } from './config-file.js';
import type { DeclaredInterceptor, DeclaredSpecialist, PlannerEntry, ProjectConfig } from './config-schema.js';
import { routingOptionsOf } from './routing-section.js';
import { notifyOptionsOf } from './notify-section.js';
import { toolSelectionProblems } from './tool-selections.js';
import { lockedAgentsReader } from './governance.js';
import { lockFilePath } from './governance-section.js';

/** What each tier's worker is started with, besides the runtime's options, from a configuration. */
export interface TierSetup {
  readonly monitor: { readonly budget?: Budget; readonly historyHalfLifeMs?: number };
  /** The deployment's webhooks, for every tier: each queues the events it sees, the Monitor delivers them. */
  readonly notify?: NotifyOptionsInput;
  readonly architect: { readonly planner?: Planner; readonly maxRevisions?: number };
  readonly dispatcher: {
    readonly decomposer?: Planner;
    readonly boundaries?: Record<string, string[]>;
    /** The agents the lock file pins, read afresh when it changes: the Dispatcher pins its Fleet delegations to them (docs/operations.md#governed-handoffs). */
    readonly lockedAgents?: () => Promise<ReadonlyMap<string, AgentIdentity>>;
  } & ReturnType<typeof routingOptionsOf>;
  /** The specialists the Fleet serves besides `sim`: those configured, then the endpoint's models ({@link discoveredSpecialists}). */
  readonly specialists: readonly Specialist[];
  /** Every tier's handoff interceptors, in the file's order. */
  readonly interceptors: readonly HandoffInterceptor[];
  /** Stops what the setup started: the MCP servers a Fleet started for its specialists' tools. */
  close(): Promise<void>;
}

/**
 * Turns a configuration into the tiers' options: builds the LLM specialists and planners, loads
 * the modules it names (relative to the file). The endpoint's models are not asked for here: that
 * is the Fleet's, at start ({@link discoveredSpecialists}).
 *
 * @throws ConfigError naming the file and field of each problem: a module that does not load or
 *   does not export what it should, a secret's variable unset, a specialist that is invalid.
 */
export async function tierSetup(loaded: LoadedConfig, env: NodeJS.ProcessEnv = process.env): Promise<TierSetup> {
  const { config, file } = loaded;
  const where = (field: string) => `${file === null ? 'configuration' : shownPath(file, process.cwd())}: ${field}`;
  const base = file === null ? process.cwd() : dirname(file);
  const tools = projectTools(config, env, where);
  const toolProblems = toolSelectionProblems(config);
  if (toolProblems.length > 0) throw new ConfigError(toolProblems.map(where));
  const specialists = governedVersions(await specialistsOf({ ...config, toolSource: tools.source }, base, env, (i) => where(`specialists[${i}]`)), config);
  const names = [...specialists.map((specialist) => specialist.name), 'sim'];
  const planner = config.architect?.planner === undefined ? undefined : await plannerOf(config.architect.planner, config, base, env, names, where('architect.planner'));
  const decomposer = config.dispatcher?.decomposer === undefined ? undefined : await plannerOf(config.dispatcher.decomposer, config, base, env, names, where('dispatcher.decomposer'));
  const notify = notifyOptionsOf(config.notify, env, where);
  const interceptors = (await Promise.all(config.interceptors.map((entry, i) => interceptorsOf(entry, base, where(`interceptors[${i}]`))))).flat();
  return {
    monitor: {
      ...(config.budget === undefined ? {} : { budget: config.budget }),
      ...(config.history?.halfLife === undefined ? {} : { historyHalfLifeMs: config.history.halfLife }),
    },
    ...(notify === undefined ? {} : { notify }),
    architect: { ...(planner ? { planner } : {}), ...(config.architect?.maxRevisions === undefined ? {} : { maxRevisions: config.architect.maxRevisions }) },
    dispatcher: {
      ...(decomposer ? { decomposer } : {}),
      ...(config.routing ? routingOptionsOf(config.routing) : {}),
      ...(config.boundaries ? { boundaries: config.boundaries } : {}),
      lockedAgents: lockedAgentsReader(lockFilePath(loaded), shownPath(lockFilePath(loaded), process.cwd()), consoleLogger('dispatcher')),
    },
    specialists,
    interceptors,
    close: () => tools.close(),
  };
}

/**
 * The specialists with the versions `governance.agents` gives them, so the Fleet registers the
 * version the manifest and the lock file name.
 */
function governedVersions(specialists: Specialist[], config: ProjectConfig): Specialist[] {
  const agents = config.governance?.agents ?? {};
  return specialists.map((specialist) => {
    const version = Object.hasOwn(agents, specialist.name) ? agents[specialist.name]?.version : undefined;
    return version === undefined ? specialist : { ...specialist, version };
  });
}

/**
 * The project's tools: its function tools (each checked here, its problems blamed on its field)
 * and its MCP servers, which start only once a specialist that names their tools runs (in a Fleet
 * process, then: the other tiers start none).
 */
function projectTools(config: ProjectConfig, env: NodeJS.ProcessEnv, where: (field: string) => string) {
  const functions = config.tools.map((definition, i) => {
    try {
      return functionTool(definition);
    } catch (error) {
      throw new ConfigError([`${where(`tools[${i}]`)}: ${error instanceof Error ? error.message : String(error)}`]);
    }
  });
  const duplicates = functions.map((tool) => tool.name).filter((name, i, names) => names.indexOf(name) !== i);
  if (duplicates.length > 0) throw new ConfigError([`${where('tools')}: two tools named ${duplicates.map((name) => JSON.stringify(name)).join(', ')}`]);
  const mcp = config.mcp && Object.keys(config.mcp).length > 0 ? new McpServers({ servers: config.mcp, env, log: consoleLogger('mcp') }) : null;
  return { source: new ProjectTools(functions, mcp), close: async () => mcp?.close() };
}

/** Where an LLM specialist entry's `tools` are found. */
type WithTools = ProjectConfig & { readonly toolSource: ProjectTools };

/**
 * Whether Dispatchers calibrate, when the project file decides it: its `history.calibrate`, unless
 * TIERFLOW_CALIBRATION is set (the environment wins, as it does for every setting both give).
 * Undefined leaves the runtime's own (the variable's, else on).
 */
export function projectCalibration(config: ProjectConfig, env: { readonly TIERFLOW_CALIBRATION?: 'on' | 'off' | undefined }): boolean | undefined {
  return env.TIERFLOW_CALIBRATION === undefined ? config.history?.calibrate : undefined;
}

type InterceptorEntry = ProjectConfig['interceptors'][number];

/** The interceptors an entry of the file gives: a built-in by name, or what a module exports (one or a list). */
async function interceptorsOf(entry: InterceptorEntry, base: string, where: string): Promise<HandoffInterceptor[]> {
  // An interceptor object is taken as it is, even one with a `kind` of its own.
  if (interceptorProblems(entry).length === 0) return [entry as HandoffInterceptor];
  const declared = entry as DeclaredInterceptor;
  switch (declared.kind) {
    case 'evidence-grades':
      return [evidenceGrades(defined({ minimum: declared.minimum, required: declared.required }))];
    case 'tone-isolation': {
      const isolate = declared.isolate === undefined ? undefined : await loaded(resolve(base, declared.isolate.module), declared.isolate.export, `${where}.isolate`);
      if (isolate !== undefined && typeof isolate !== 'function') throw new ConfigError([`${where}.isolate: ${declared.isolate!.module} exports a value that is not a function`]);
      return [toneIsolation(defined({ groups: declared.groups, isolate: isolate as Isolate | undefined }))];
    }
    case 'module': {
      const value = await loaded(resolve(base, declared.module), declared.export, where);
      const list = Array.isArray(value) ? (value as unknown[]) : [value];
      const problems = list.flatMap((item, i) => interceptorProblems(item).map((problem) => `${where} (${declared.module}${Array.isArray(value) ? ` [${i}]` : ''}): ${problem}`));
      if (problems.length > 0) throw new ConfigError(problems);
      return list as HandoffInterceptor[];
    }
  }
}

type Entry = ProjectConfig['specialists'][number];

function isSpecialistObject(entry: Entry): entry is Specialist {
  return typeof (entry as Partial<Specialist>).run === 'function';
}

/** The file's specialists, in its order. Checked writers name others of the file, so they are made last. */
async function specialistsOf(config: WithTools, base: string, env: NodeJS.ProcessEnv, where: (index: number) => string): Promise<Specialist[]> {
  const built = await Promise.all(
    config.specialists.map(async (entry, i) => {
      if (isSpecialistObject(entry)) return [checked(entry, where(i))];
      return entry.kind === 'checked' ? [] : await declared(entry, config, base, env, where(i));
    }),
  );
  const byName = new Map([simSpecialist, ...built.flat()].map((specialist) => [specialist.name, specialist]));
  return config.specialists.flatMap((entry, i) => (!isSpecialistObject(entry) && entry.kind === 'checked' ? [checkedOf(entry, byName, where(i))] : (built[i] ?? [])));
}

function checkedOf(entry: Extract<DeclaredSpecialist, { kind: 'checked' }>, byName: ReadonlyMap<string, Specialist>, where: string): Specialist {
  const writer = byName.get(entry.writer);
  const checker = byName.get(entry.checker);
  const missing = [...(writer ? [] : [`${where}.writer`]), ...(checker ? [] : [`${where}.checker`])];
  if (!writer || !checker) throw new ConfigError(missing.map((field) => `${field}: no specialist of that name in this file`));
  return checked(() => checkedSpecialist({ name: entry.name, writer, checker }), where);
}

async function declared(entry: Exclude<DeclaredSpecialist, { kind: 'checked' }>, config: WithTools, base: string, env: NodeJS.ProcessEnv, where: string): Promise<Specialist[]> {
  switch (entry.kind) {
    case 'llm': {
      const { kind: _kind, apiKeyEnv, baseURL, provider, tools, ...rest } = entry;
      const endpoint = endpointOf({ baseURL, apiKeyEnv, provider }, config, env, where);
      return [
        checked(
          () =>
            llmSpecialist({
              ...defined(rest),
              ...endpoint,
              ...confidenceOf(entry, config),
              ...priceOf(rest.model ?? rest.name, config),
              ...limitsOf(rest.model ?? rest.name, endpoint.baseURL ?? defaultBaseURL(env), config.models?.limits),
              ...(tools && tools.length > 0 ? { tools, toolSource: config.toolSource } : {}),
            }),
          where,
        ),
      ];
    }
    case 'code-runner': {
      const { kind: _kind, ...limits } = entry;
      return [checked(() => codeRunnerSpecialist(defined(limits)), where)];
    }
    case 'a2a': {
      const { kind: _kind, tokenEnv, ...rest } = entry;
      const token = tokenEnv === undefined ? undefined : env[tokenEnv];
      if (tokenEnv !== undefined && !token) throw new ConfigError([`${where}.tokenEnv: ${tokenEnv} is not set`]);
      // The id the work it hands over carries (docs/protocol.md#delegation-across-deployments), as this Fleet's options resolve it.
      const deploymentId = deploymentIdFromEnv(env, { tier: 'fleet' });
      return [checked(() => a2aSpecialist({ ...defined(rest), ...(token === undefined ? {} : { token }), deploymentId }), where)];
    }
    case 'module': {
      const value = await loaded(resolve(base, entry.module), entry.export, where);
      const list = Array.isArray(value) ? (value as unknown[]) : [value];
      return list.map((specialist, i) => checked(specialist as Specialist, Array.isArray(value) ? `${where} (${entry.module} [${i}])` : `${where} (${entry.module})`));
    }
  }
}

async function plannerOf(entry: PlannerEntry, config: ProjectConfig, base: string, env: NodeJS.ProcessEnv, specialists: readonly string[], where: string): Promise<Planner> {
  if (typeof entry === 'function') return entry;
  switch (entry.kind) {
    case 'llm': {
      const { kind: _kind, apiKeyEnv, baseURL, provider, ...rest } = entry;
      const endpoint = endpointOf({ baseURL, apiKeyEnv, provider }, config, env, where);
      return llmPlanner({ ...defined(rest), ...endpoint, specialists, ...priceOf(rest.model, config), ...limitsOf(rest.model, endpoint.baseURL ?? defaultBaseURL(env), config.models?.limits) });
    }
    case 'module': {
      const value = await loaded(resolve(base, entry.module), entry.export, where);
      if (typeof value !== 'function') throw new ConfigError([`${where}: ${entry.module} exports ${JSON.stringify(entry.export ?? 'default')} that is not a function`]);
      return value as Planner;
    }
  }
}

/** The endpoint of an entry: its own fields, else the `models` section's; a key named by variable read now. */
function endpointOf(
  own: { baseURL?: string | undefined; apiKeyEnv?: string | undefined; provider?: string | undefined },
  config: ProjectConfig,
  env: NodeJS.ProcessEnv,
  where: string,
): { baseURL?: string; apiKey?: string; provider?: string } {
  const baseURL = own.baseURL ?? config.models?.baseURL;
  const provider = own.provider ?? config.models?.provider;
  const keyVar = own.apiKeyEnv ?? config.models?.apiKeyEnv;
  const apiKey = keyVar === undefined ? undefined : env[keyVar];
  if (keyVar !== undefined && !apiKey) throw new ConfigError([`${where}.apiKeyEnv: ${keyVar} is not set`]);
  return { ...(baseURL === undefined ? {} : { baseURL }), ...(apiKey === undefined ? {} : { apiKey }), ...(provider === undefined ? {} : { provider }) };
}

function confidenceOf(entry: { defaultConfidence?: number | undefined }, config: ProjectConfig): { defaultConfidence?: number } {
  const value = entry.defaultConfidence ?? config.models?.defaultConfidence;
  return value === undefined ? {} : { defaultConfidence: value };
}

/** A model's price from `models.prices`, when the file gives one. */
function priceOf(model: string, config: ProjectConfig): { price?: ModelPrice } {
  const price = config.models?.prices?.[model];
  return price === undefined || !Object.hasOwn(config.models?.prices ?? {}, model) ? {} : { price };
}

async function loaded(file: string, exportName: string | undefined, where: string): Promise<unknown> {
  let value: unknown;
  try {
    value = await importModule(file, exportName);
  } catch (error) {
    throw new ConfigError([`${where}: cannot load ${file}: ${error instanceof Error ? error.message : String(error)}`]);
  }
  if (value === undefined) throw new ConfigError([`${where}: ${file} has no export ${JSON.stringify(exportName ?? 'default')}`]);
  return value;
}

/** A specialist checked by defineSpecialist, its problems blamed on the field that gave it. */
function checked(specialist: Specialist | (() => Specialist), where: string): Specialist {
  try {
    return typeof specialist === 'function' ? specialist() : defineSpecialist(specialist);
  } catch (error) {
    if (isTierflowError(error)) throw new ConfigError([`${where}: ${error.message}`]);
    throw error;
  }
}

/**
 * One LLM specialist per model the endpoint serves that is not registered already, when an
 * endpoint is configured (the file's `models.baseURL`, else OPENAI_BASE_URL) and `models.discover`
 * is not false. An endpoint that cannot be asked is logged and skipped: the Fleet serves the rest.
 */
export async function discoveredSpecialists(config: ProjectConfig, registry: SpecialistRegistry, log: TierLogger, env: NodeJS.ProcessEnv = process.env): Promise<Specialist[]> {
  const baseURL = config.models?.baseURL ?? defaultBaseURL(env);
  if (baseURL === undefined || config.models?.discover === false) return [];
  // Under governance.require every agent is in the lock file: models found at start are not.
  if (config.governance?.require === true) {
    log.info('governance.require is on: the endpoint models are not discovered; declare the ones to serve as specialists');
    return [];
  }
  const endpoint = endpointOf({}, config, env, 'models');
  let models: string[];
  try {
    models = await discoverModels({ ...endpoint, baseURL });
  } catch (error) {
    log.warn('cannot list the endpoint models; serving the configured specialists only', { error: error instanceof Error ? error.message : String(error) });
    return [];
  }
  const fresh = models.filter((model) => registry.get(model) === undefined && specialistNameSchema.safeParse(model).success);
  // A base model such as `org/model` cannot be a specialist name; its LoRA adapters usually can.
  const unnamed = models.filter((model) => !specialistNameSchema.safeParse(model).success);
  if (unnamed.length > 0) log.info('endpoint models not served as specialists (not a specialist name)', { models: unnamed });
  return fresh.map((model) => llmSpecialist({ name: model, ...endpoint, baseURL, ...confidenceOf({}, config), ...priceOf(model, config), ...limitsOf(model, baseURL, config.models?.limits) }));
}
