import { ConfigError } from '@tierflow/runtime';
import { readTierflowEnv } from '@tierflow/runtime/admin';
import { loadConfig } from '../config/config-file.js';
import { limitProblems } from '../config/limits-of.js';
import { toolSelectionProblems } from '../config/tool-selections.js';
import { configRows, type SettingSource } from '../config/config-report.js';
import { EXIT, type CliIo } from '../io.js';
import { textTable } from '../text-table.js';

export interface ConfigOptions {
  readonly config?: string;
  readonly json?: boolean;
}

/**
 * `tierflow config [--config F] [--json]`: the configuration `up`, `worker` and the client
 * commands would run with, each setting with where its value came from. A bad variable or project
 * file stops it as it would stop them (exit 2, every problem named).
 */
export async function configCommand(options: ConfigOptions, io: CliIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const resolved = readTierflowEnv(env);
  const explicit = options.config ?? resolved.TIERFLOW_CONFIG;
  const fileFrom: SettingSource = options.config !== undefined ? '--config' : resolved.TIERFLOW_CONFIG !== undefined ? 'env (TIERFLOW_CONFIG)' : 'found here';
  const loaded = await loadConfig(explicit);
  // What the workers would refuse on reading the file, named here rather than at their start.
  const problems = [...limitProblems(loaded.config, env), ...toolSelectionProblems(loaded.config)];
  if (problems.length > 0) throw new ConfigError(problems);
  const rows = configRows(env, resolved, loaded, fileFrom);
  io.stdout(
    options.json
      ? `${JSON.stringify(rows, null, 2)}\n`
      : textTable(
          // The value last: a long one (a routing table, prices) does not push the source off screen.
          ['SETTING', 'FROM', 'VALUE'],
          rows.map((row) => [row.name, row.from, row.value]),
        ),
  );
  return EXIT.ok;
}
