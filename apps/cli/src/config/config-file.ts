import { ConfigError } from '@tierflow/runtime';
import { createJiti, type Jiti } from 'jiti';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { issueLines } from './config-issues.js';
import { projectConfigSchema, type ProjectConfig } from './config-schema.js';

/** The names looked for in the working directory, in this order. */
export const CONFIG_FILE_NAMES = ['tierflow.config.ts', 'tierflow.config.mts', 'tierflow.config.js', 'tierflow.config.mjs', 'tierflow.config.json'] as const;

/** A configuration as read: where from (null: none, the built-in setup) and what it says. */
export interface LoadedConfig {
  readonly file: string | null;
  readonly config: ProjectConfig;
}

/**
 * The configuration file to use: `explicit` (from `--config` or TIERFLOW_CONFIG) when given, which
 * must exist; else the first of {@link CONFIG_FILE_NAMES} in `cwd`; else null.
 *
 * @throws ConfigError when `explicit` names no file.
 */
export function findConfigFile(explicit: string | undefined, cwd: string): string | null {
  if (explicit !== undefined) {
    const file = resolve(cwd, explicit);
    if (!existsSync(file)) throw new ConfigError([`${explicit}: no such configuration file`]);
    return file;
  }
  const found = CONFIG_FILE_NAMES.map((name) => resolve(cwd, name)).find((file) => existsSync(file));
  return found ?? null;
}

/**
 * Reads and checks a configuration file: JSON as it is, JavaScript by import, TypeScript through
 * jiti (the loader ESLint and Nuxt use for theirs). A module's default export is the configuration.
 *
 * @throws ConfigError with one line per problem, each naming the file and the field.
 */
export async function readConfigFile(file: string, cwd: string = process.cwd()): Promise<LoadedConfig> {
  const shown = shownPath(file, cwd);
  const raw = await importConfig(file, shown);
  const parsed = projectConfigSchema.safeParse(raw);
  if (!parsed.success) throw new ConfigError(issueLines(parsed.error.issues).map((line) => `${shown}: ${line}`));
  return { file, config: parsed.data };
}

/** The configuration to run with: the file found as {@link findConfigFile} says, or the built-in setup. */
export async function loadConfig(explicit: string | undefined, cwd: string = process.cwd()): Promise<LoadedConfig> {
  const file = findConfigFile(explicit, cwd);
  return file === null ? { file: null, config: projectConfigSchema.parse({}) } : readConfigFile(file, cwd);
}

async function importConfig(file: string, shown: string): Promise<unknown> {
  try {
    if (file.endsWith('.json')) return JSON.parse(await readFile(file, 'utf8')) as unknown;
    return await importModule(file);
  } catch (error) {
    throw new ConfigError([`${shown}: cannot be read: ${error instanceof Error ? error.message : String(error)}`]);
  }
}

/** A module's default export (or the module itself when it has none), TypeScript included. */
export async function importModule(file: string, exportName = 'default'): Promise<unknown> {
  const module = /\.[cm]?ts$/.test(file) ? await typeScriptLoader().import<Record<string, unknown>>(file) : ((await import(pathToFileURL(file).href)) as Record<string, unknown>);
  return exportName === 'default' && !('default' in module) ? module : module[exportName];
}

let loader: Jiti | undefined;
function typeScriptLoader(): Jiti {
  // Made once, when a TypeScript file is first loaded.
  loader ??= createJiti(import.meta.url);
  return loader;
}

/** A file as a message names it: relative to `cwd` when inside it. */
export function shownPath(file: string, cwd: string): string {
  const path = relative(cwd, file);
  return path.startsWith('..') || isAbsolute(path) ? file : path;
}
