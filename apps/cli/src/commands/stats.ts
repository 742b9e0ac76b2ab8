import { runtimeOptionsFromEnv, TierflowClient } from '@tierflow/runtime';
import { EXIT, type CliIo } from '../io.js';
import { renderStats } from '../render-stats.js';

export interface StatsOptions {
  readonly taskType?: string;
  readonly json?: boolean;
}

/**
 * `tierflow stats [--task-type t] [--json]`: what the Monitor learned of each specialist, per task
 * type (docs/operations.md#specialists-and-their-history); `--json` prints the history report.
 */
export async function statsCommand(options: StatsOptions, io: CliIo): Promise<number> {
  const client = await TierflowClient.connect(runtimeOptionsFromEnv());
  try {
    const report = await client.historyReport(options.taskType === undefined ? {} : { taskType: options.taskType });
    io.stdout(options.json ? `${JSON.stringify(report, null, 2)}\n` : renderStats(report, options));
    return EXIT.ok;
  } finally {
    await client.close();
  }
}
