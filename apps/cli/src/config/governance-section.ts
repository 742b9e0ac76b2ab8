import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { isSemver, SEMVER_MESSAGE } from './semver.js';

/** The kinds of agent a manifest names (docs/operations.md#governed-handoffs). */
export const AGENT_TYPES = ['domain', 'archetype', 'orchestrator'] as const;
export type AgentType = (typeof AGENT_TYPES)[number];

export const agentTypeSchema = z.enum(AGENT_TYPES, { error: 'must be domain, archetype or orchestrator' });
export const semverSchema = z.string().refine(isSemver, { message: SEMVER_MESSAGE });

/** What the project file may say of one agent of the manifest: its type or version, in place of the derived one. */
export const governedAgentSchema = z.strictObject({ type: agentTypeSchema.optional(), version: semverSchema.optional() });
export type GovernedAgent = z.infer<typeof governedAgentSchema>;

/** The lock file's name when `governance.lock` gives none: beside the project file. */
export const DEFAULT_LOCK_FILE = 'tierflow.lock.json';

/** Where a project's lock file is: `governance.lock`, else {@link DEFAULT_LOCK_FILE}, relative to the project file (or `cwd` without one). */
export function lockFilePath(
  project: { readonly file: string | null; readonly config: { readonly governance?: { readonly lock?: string | undefined } | undefined } },
  cwd: string = process.cwd(),
): string {
  return resolve(project.file === null ? cwd : dirname(project.file), project.config.governance?.lock ?? DEFAULT_LOCK_FILE);
}

/** The runtime's package version: the version of the built-in tiers, as orchestrator agents. */
export function runtimeVersion(): string {
  const manifest = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('@tierflow/runtime/package.json'), 'utf8')) as { version?: unknown };
  return typeof manifest.version === 'string' ? manifest.version : '0.0.0';
}
