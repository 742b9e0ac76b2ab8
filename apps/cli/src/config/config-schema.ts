import { codeRunnerOptionsSchema, mcpSectionSchema, type FunctionToolDefinition, type Specialist } from '@tierflow/fleet';
import { budgetSchema, evidenceGradeSchema } from '@tierflow/protocol';
import { EVIDENCE_GRADES_INTERCEPTOR, interceptorProblems, modelLimitSchema, RUNTIME_RANGES, TONE_ISOLATION_INTERCEPTOR, type Planner } from '@tierflow/runtime/policy';
import { type HandoffInterceptor } from '@tierflow/runtime';
import { z } from 'zod';
import { routingSectionSchema } from './routing-section.js';
import { notifySectionSchema } from './notify-section.js';
import { governedAgentSchema } from './governance-section.js';

/** A module to load, relative to the configuration file, and which of its exports (`default` when left out). */
const moduleRef = { module: z.string().min(1), export: z.string().min(1).optional() };

/** The name of an environment variable that holds a secret, so the secret stays out of the file. */
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: 'must be the name of an environment variable' });

/** Where models are served; each field falls back to `models`' own, then to OPENAI_BASE_URL / OPENAI_API_KEY. */
const endpointFields = {
  baseURL: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional(),
  apiKeyEnv: envName.optional(),
  /** Who serves the models, as the GenAI conventions name providers (`openai`, `azure.ai.openai`, `aws.bedrock`…): for spans and metrics; told from the host when left out. */
  provider: z
    .string()
    .regex(/^[a-z][a-z0-9_.]{0,63}$/, { message: 'must be a provider name such as openai or azure.ai.openai' })
    .optional(),
};

/** What a model's tokens cost, in US dollars per million tokens. */
export const priceSchema = z.strictObject({ input_usd_per_mtok: z.number().nonnegative(), output_usd_per_mtok: z.number().nonnegative() });

const llmSpecialistEntry = z.strictObject({
  kind: z.literal('llm'),
  name: z.string().min(1),
  /** The model to call; the name when left out (a LoRA adapter served under its own name). */
  model: z.string().min(1).optional(),
  ...endpointFields,
  defaultConfidence: z.number().min(0).max(1).optional(),
  systemPrompt: z.string().min(1).optional(),
  maxConcurrent: z.int().positive().optional(),
  /** Ask for answers as streams of chunks. */
  stream: z.boolean().optional(),
  /** The most tokens an answer may have (`max_tokens`): what each call reserves for its output against a run's budget. */
  maxTokens: z.int().positive().optional(),
  /** The tools it may call, by name or pattern: the file's `tools`, and its MCP servers' as `mcp:<server>/<tool>` (`mcp:files/*`). */
  tools: z.array(z.string().min(1)).optional(),
  /** The most tool calls one run of it makes (10 when left out). */
  maxToolCalls: z.int().positive().optional(),
});

const moduleSpecialistEntry = z.strictObject({ kind: z.literal('module'), ...moduleRef });

/** A writer whose work a checker must pass (checkedSpecialist): both named among the file's other specialists, or `sim`. */
const checkedSpecialistEntry = z.strictObject({ kind: z.literal('checked'), name: z.string().min(1), writer: z.string().min(1), checker: z.string().min(1) });

/** The code runner, with its limits (all optional): docs/extending.md#the-code-runner. */
const codeRunnerEntry = codeRunnerOptionsSchema.partial().extend({ kind: z.literal('code-runner') });

/** A remote Agent2Agent agent (another Tierflow's `tierflow serve`, say): docs/extending.md#remote-agents-a2a. */
const a2aSpecialistEntry = z.strictObject({
  kind: z.literal('a2a'),
  name: z.string().min(1),
  /** The agent's base URL: its card is at `/.well-known/agent-card.json` under it. */
  url: z.url({ protocol: /^https?$/ }),
  /** The variable that holds the bearer token the agent asks for. */
  tokenEnv: envName.optional(),
  /** The confidence of a completed task whose agent gives none. */
  defaultConfidence: z.number().min(0).max(1).optional(),
  maxConcurrent: z.int().positive().optional(),
});

/** A specialist declared in the file: a model, a module that exports what `defineSpecialist` makes, the code runner, a checked writer, or a remote A2A agent. */
const declaredSpecialist = z.discriminatedUnion('kind', [llmSpecialistEntry, moduleSpecialistEntry, codeRunnerEntry, checkedSpecialistEntry, a2aSpecialistEntry]);
export type DeclaredSpecialist = z.infer<typeof declaredSpecialist>;

/** A specialist object itself, as a `.js` or `.ts` configuration may give it; `defineSpecialist` checks the rest. */
const specialistObject = z.custom<Specialist>((value) => typeof value === 'object' && value !== null && typeof (value as { run?: unknown }).run === 'function', {
  message: 'must be a specialist (what defineSpecialist makes)',
});

const plannerFunction = z.custom<Planner>((value) => typeof value === 'function', { message: 'must be a function' });
const llmPlannerEntry = z.strictObject({
  kind: z.literal('llm'),
  model: z.string().min(1),
  ...endpointFields,
  systemPrompt: z.string().min(1).optional(),
  maxTokens: z.int().positive().optional(),
});
const modulePlannerEntry = z.strictObject({ kind: z.literal('module'), ...moduleRef });
const plannerEntry = z.union([plannerFunction, z.discriminatedUnion('kind', [llmPlannerEntry, modulePlannerEntry])]);
export type PlannerEntry = z.infer<typeof plannerEntry>;

/** A function tool, as a `.js` or `.ts` configuration gives it: `functionTool` checks the rest. */
const functionToolObject = z.custom<FunctionToolDefinition>(
  (value) => typeof value === 'object' && value !== null && typeof (value as { name?: unknown }).name === 'string' && typeof (value as { run?: unknown }).run === 'function',
  { message: 'must be a tool: { name, description, parameters?, approve?, run }' },
);

/** An interceptor object itself, as a `.js` or `.ts` configuration may give it (what `evidenceGrades()`, `toneIsolation()` or your own code makes). */
const interceptorObject = z.custom<HandoffInterceptor>((value) => typeof value === 'object' && value !== null && interceptorProblems(value).length === 0, {
  message: 'must be an interceptor: { name, send?, receive? } with at least one hook',
});

/** The built-in interceptors by name, and modules that export interceptors of your own: docs/protocol.md#handoff-interceptors. */
const declaredInterceptor = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal(EVIDENCE_GRADES_INTERCEPTOR), minimum: evidenceGradeSchema.optional(), required: z.boolean().optional() }),
  z.strictObject({
    kind: z.literal(TONE_ISOLATION_INTERCEPTOR),
    groups: z.record(z.string().min(1), z.array(z.string().min(1))).optional(),
    /** A module whose export rewrites upstream work in place of the built-in (an `Isolate`). */
    isolate: z.strictObject(moduleRef).optional(),
  }),
  z.strictObject({ kind: z.literal('module'), ...moduleRef }),
]);
export type DeclaredInterceptor = z.infer<typeof declaredInterceptor>;

const DURATION_UNITS_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * A duration: whole milliseconds, or a number and a unit (`ms`, `s`, `m`, `h`, `d`: `"1d"`,
 * `"12h"`, `"1.5d"`), read as milliseconds and bounded as `range` says.
 */
export function durationSchema(range: { readonly min: number; readonly max: number }) {
  const message = `must be a duration such as "1d", "12h" or "90m", or whole milliseconds, from ${range.min} ms to ${range.max} ms`;
  return z.union([z.number(), z.string()]).transform((value, ctx) => {
    const match = typeof value === 'string' ? /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(value) : null;
    const ms = typeof value === 'number' ? value : match ? Math.round(Number(match[1]) * DURATION_UNITS_MS[match[2] as keyof typeof DURATION_UNITS_MS]) : Number.NaN;
    if (Number.isSafeInteger(ms) && ms >= range.min && ms <= range.max) return ms;
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  });
}

/**
 * How handoffs are governed (docs/operations.md#governed-handoffs). `require: true` makes every
 * worker refuse to start with an agent the lock file does not list as it runs, and every tier
 * refuse a handoff without a valid attestation.
 */
const governanceSectionSchema = z.strictObject({
  require: z.boolean().optional(),
  /** The lock file, relative to the project file: `tierflow.lock.json` when left out. */
  lock: z.string().min(1).optional(),
  /** Agent id → the type or version the manifest gives it in place of the one derived from the setup. */
  agents: z.record(z.string().min(1), governedAgentSchema).optional(),
});

/** What the tiers learn from their history (docs/operations.md#history). */
const historySection = z.strictObject({
  /** The half-life of the Monitor's history: what happened that long ago counts half. A day when left out. */
  halfLife: durationSchema(RUNTIME_RANGES.historyHalfLifeMs).optional(),
  /** Whether Dispatchers calibrate their Fleet leaves' confidence against history (on when left out). */
  calibrate: z.boolean().optional(),
});

/**
 * The project file, `tierflow.config.{ts,mts,js,mjs,json}`: what `tierflow up`, `tierflow worker`
 * and `tierflow demo` run besides the built-in `sim` specialist. Strict: a misspelt field is an
 * error, not a silent default.
 */
export const projectConfigSchema = z.strictObject({
  /** Specialists the Fleet serves, besides `sim`. */
  specialists: z.array(z.union([specialistObject, declaredSpecialist])).default([]),
  /** The model endpoint and what its models cost. */
  models: z
    .strictObject({
      ...endpointFields,
      /** Every model the endpoint lists (`GET /v1/models`) becomes a specialist of its name; on by default when there is an endpoint. */
      discover: z.boolean().optional(),
      /** model → price, for the cost in each outcome's usage. */
      prices: z.record(z.string().min(1), priceSchema).optional(),
      /** The confidence of an answer whose model gives none. */
      defaultConfidence: z.number().min(0).max(1).optional(),
      /** model, or an endpoint's base URL (every model there sharing it) → rpm, tpm and concurrent requests, shared by every process that calls it (docs/operations.md#model-limits). */
      limits: z.record(z.string().min(1), modelLimitSchema).optional(),
    })
    .optional(),
  /**
   * The Dispatcher's routes: task type → [specialist, ...alternates]; `'*'` for every other type.
   * The keys `mode`, `objective` and `exploration` set how it chooses among them (docs/operations.md#routing-modes).
   */
  routing: routingSectionSchema.optional(),
  architect: z.strictObject({ planner: plannerEntry.optional(), maxRevisions: z.int().nonnegative().optional() }).optional(),
  dispatcher: z.strictObject({ decomposer: plannerEntry.optional() }).optional(),
  /** The budget of a run whose objective sets none; an objective's own limits take the place of these one by one. */
  budget: budgetSchema.optional(),
  /**
   * Who may hand work to whom (docs/protocol.md#collaboration-boundaries): sender → the targets it
   * may hand to, as tier slugs or `fleet:<specialist>`, `*` for any characters; a sender not named is not bounded.
   */
  boundaries: z.record(z.string().min(1), z.array(z.string().min(1))).optional(),
  /** What the tiers learn from their history: its half-life, and whether confidence is calibrated against it. */
  history: historySection.optional(),
  /** Tools written as functions, for the LLM specialists that name them in their `tools` (docs/extending.md#tools). */
  tools: z.array(functionToolObject).default([]),
  /** MCP servers whose tools LLM specialists may call as `mcp:<server>/<tool>`: a `command` each Fleet process starts, or a `url`. */
  mcp: mcpSectionSchema.optional(),
  /** Middleware on every handoff, in order (docs/protocol.md#handoff-interceptors): every tier runs the same chain. */
  interceptors: z.array(z.union([interceptorObject, declaredInterceptor])).default([]),
  /** Webhooks told of runs: `{ url, events?, secretEnv }` each (docs/extending.md#webhooks). */
  notify: notifySectionSchema.optional(),
  /** How handoffs are governed (docs/operations.md#governed-handoffs): the agents' manifest, the lock file they are checked against, and whether checks are required. */
  governance: governanceSectionSchema.optional(),
});

/** What a configuration file's default export may be. */
export type ProjectConfigInput = z.input<typeof projectConfigSchema>;
export type ProjectConfig = z.output<typeof projectConfigSchema>;

/**
 * Types a configuration in `tierflow.config.ts` and returns it unchanged.
 *
 * ```ts
 * import { defineConfig } from '@tierflow/cli';
 * export default defineConfig({ specialists: [{ kind: 'llm', name: 'python-lora' }], routing: { execute_code: ['python-lora', 'sim'] } });
 * ```
 */
export function defineConfig(config: ProjectConfigInput): ProjectConfigInput {
  return config;
}
