import { promptHashOf, simSpecialist, type Specialist } from '@tierflow/fleet';
import type { AgentIdentity, TierSlug } from '@tierflow/protocol';
import { defined } from './defined.js';
import type { PlannerEntry, ProjectConfig } from './config-schema.js';
import type { AgentType } from './governance-section.js';
import { isSemver, SEMVER_MESSAGE } from './semver.js';

/** One agent of a deployment, as the manifest lists it and the lock file pins it. */
export interface ManifestAgent {
  readonly id: string;
  readonly type: AgentType;
  readonly version: string;
  readonly prompt_hash: string;
}

/** A deployment's agents, sorted by id, and what is wrong with them (an empty list when nothing is). */
export interface Manifest {
  readonly agents: readonly ManifestAgent[];
  readonly problems: readonly string[];
}

/** What the manifest is made from: the project file, the specialists its setup built, and the runtime's version. */
export interface ManifestInput {
  readonly config: Pick<ProjectConfig, 'architect' | 'dispatcher' | 'governance'>;
  /** The file's specialists as the setup built them (`sim` is added here, as every Fleet serves it). */
  readonly specialists: readonly Specialist[];
  readonly runtimeVersion: string;
}

const TIERS: readonly TierSlug[] = ['monitor', 'architect', 'dispatcher', 'fleet'];

/**
 * The deployment's manifest (docs/operations.md#governed-handoffs): the four tiers as
 * `orchestrator` agents (their id the tier's slug, their version the runtime's, their hash over
 * what decides their behaviour: the Architect's planner, the Dispatcher's decomposer, else a
 * built-in marker), every specialist as a `domain` agent with the identity the Fleet registers,
 * a composed (checked) specialist as an `archetype`; then `governance.agents`' types and
 * versions. Pure.
 */
export function manifestOf(input: ManifestInput): Manifest {
  const overrides = input.config.governance?.agents ?? {};
  const derived: ManifestAgent[] = [
    ...TIERS.map((tier) => ({ id: tier, type: 'orchestrator' as const, version: input.runtimeVersion, prompt_hash: promptHashOf(tierBehaviour(tier, input.config)) })),
    ...[simSpecialist, ...input.specialists].map(specialistAgent),
  ];
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const agent of derived) {
    if (seen.has(agent.id)) problems.push(`agent "${agent.id}": two agents have this id (a specialist may not take a tier's name)`);
    seen.add(agent.id);
  }
  for (const id of Object.keys(overrides)
    .filter((id) => !seen.has(id))
    .sort()) {
    problems.push(`governance.agents.${id}: no agent "${id}" in the manifest (its agents: ${[...seen].sort().join(', ')})`);
  }
  const agents = derived.map((agent) => ({ ...agent, ...defined(Object.hasOwn(overrides, agent.id) ? (overrides[agent.id] ?? {}) : {}) }));
  for (const agent of agents) {
    if (!isSemver(agent.version))
      problems.push(`agent "${agent.id}" (${agent.type}): version ${JSON.stringify(agent.version)} ${SEMVER_MESSAGE}: give it one, or set governance.agents.${agent.id}.version`);
  }
  if (overrides['sim']?.version !== undefined && overrides['sim'].version !== simSpecialist.version) {
    problems.push(`governance.agents.sim.version: the built-in sim specialist is version ${simSpecialist.version}; its version cannot be changed`);
  }
  return { agents: [...agents].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)), problems };
}

/** A manifest agent's identity, as a delegation pins it. Pure. */
export function identityOf(agent: ManifestAgent): AgentIdentity {
  return { agent_id: agent.id, agent_version: agent.version, prompt_hash: agent.prompt_hash };
}

/** A specialist as the Fleet registers it: `archetype` when it composes others (a checked specialist). */
function specialistAgent(specialist: Specialist): ManifestAgent {
  return {
    id: specialist.name,
    type: specialist.config?.['kind'] === 'checked' ? 'archetype' : 'domain',
    version: specialist.version,
    prompt_hash: specialist.promptHash ?? promptHashOf(specialist.config),
  };
}

/** What decides a tier's behaviour beyond the runtime's code: the planners the project gives it. */
function tierBehaviour(tier: TierSlug, config: ManifestInput['config']): Record<string, unknown> {
  if (tier === 'architect') return { tier, planner: plannerBehaviour(config.architect?.planner) };
  if (tier === 'dispatcher') return { tier, decomposer: plannerBehaviour(config.dispatcher?.decomposer) };
  return { tier, policy: 'built-in' };
}

/**
 * An LLM planner's model, prompt and endpoint (not the secret's variable); a module's path and
 * export (its code is not read: changing it without moving it keeps the hash); a function's source.
 */
function plannerBehaviour(entry: PlannerEntry | undefined): unknown {
  if (entry === undefined) return 'built-in';
  if (typeof entry === 'function') return { kind: 'function', source: entry.toString() };
  if (entry.kind === 'module') return defined({ kind: entry.kind, module: entry.module, export: entry.export });
  return defined({ kind: entry.kind, model: entry.model, systemPrompt: entry.systemPrompt, maxTokens: entry.maxTokens, baseURL: entry.baseURL, provider: entry.provider });
}
