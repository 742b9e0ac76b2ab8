import { loadConfig } from './config-file.js';
import { defaultEndpointCallers, defaultEndpointWarning } from './default-endpoint.js';
import { tierSetup } from './tier-setup.js';
import { checkGovernanceAtStart } from './governance.js';

/**
 * Checks the project configuration once, as every worker would, and returns the environment for
 * the worker processes: TIERFLOW_CONFIG naming the file found (by absolute path, so a worker
 * started elsewhere loads the same one), or unset when there is none. `warn` is told, in one line,
 * of model callers that name no endpoint and would call the public default.
 *
 * @throws ConfigError naming the file and field of each problem.
 */
export async function projectEnv(explicit: string | undefined, env: NodeJS.ProcessEnv, warn?: (line: string) => void): Promise<NodeJS.ProcessEnv> {
  const project = await loadConfig(explicit);
  const setup = await tierSetup(project, env);
  await checkGovernanceAtStart(project, setup.specialists, 'all', (line) => warn?.(line));
  const warning = defaultEndpointWarning(defaultEndpointCallers(project.config, env));
  if (warning !== null) warn?.(warning);
  const { TIERFLOW_CONFIG: _unused, ...rest } = env;
  return project.file === null ? rest : { ...rest, TIERFLOW_CONFIG: project.file };
}
