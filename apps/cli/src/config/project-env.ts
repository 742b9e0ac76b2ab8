import { loadConfig } from './config-file.js';
import { tierSetup } from './tier-setup.js';

/**
 * Checks the project configuration once, as every worker would, and returns the environment for
 * the worker processes: TIERFLOW_CONFIG naming the file found (by absolute path, so a worker
 * started elsewhere loads the same one), or unset when there is none.
 *
 * @throws ConfigError naming the file and field of each problem.
 */
export async function projectEnv(explicit: string | undefined, env: NodeJS.ProcessEnv): Promise<NodeJS.ProcessEnv> {
  const project = await loadConfig(explicit);
  await tierSetup(project, env);
  const { TIERFLOW_CONFIG: _unused, ...rest } = env;
  return project.file === null ? rest : { ...rest, TIERFLOW_CONFIG: project.file };
}
