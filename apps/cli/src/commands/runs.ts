import { runtimeOptionsFromEnv, TierflowClient, type RunListOptions, type RunStatus } from '@tierflow/runtime';
import { EXIT, type CliIo } from '../io.js';
import { renderRuns } from '../render-runs.js';

/** What `tierflow runs` is given, as main.ts parsed it (times in ms since the epoch, costs in USD). */
export interface RunsOptions {
  readonly status?: RunStatus;
  readonly text?: string;
  readonly taskType?: string;
  readonly specialist?: string;
  readonly model?: string;
  readonly error?: string;
  readonly since?: number;
  readonly until?: number;
  readonly minCost?: number;
  readonly maxCost?: number;
  readonly limit?: number;
  readonly cursor?: string;
  readonly json?: boolean;
  readonly debug?: boolean;
}

/** `tierflow runs [filters…] [--limit n] [--cursor c] [--json] [--debug]`: runs, latest first, a page at a time (docs/operations.md#finding-runs). */
export async function runsCommand(options: RunsOptions, io: CliIo): Promise<number> {
  const client = await TierflowClient.connect(runtimeOptionsFromEnv());
  try {
    const page = await client.findRuns(runQueryOf(options));
    if (options.json) {
      io.stdout(`${JSON.stringify(page, null, 2)}\n`);
      return EXIT.ok;
    }
    io.stdout(renderRuns(page.runs, Date.now(), { debug: options.debug ?? false, filtered: filtered(options) }));
    if (page.next_cursor !== null) io.stdout(`older runs: add --cursor ${page.next_cursor}\n`);
    return EXIT.ok;
  } finally {
    await client.close();
  }
}

/** The options as the client's query: only those given. */
export function runQueryOf(options: RunsOptions): RunListOptions {
  const query = {
    status: options.status,
    text: options.text,
    taskType: options.taskType,
    specialist: options.specialist,
    model: options.model,
    errorType: options.error,
    since: options.since,
    until: options.until,
    minCostUsd: options.minCost,
    maxCostUsd: options.maxCost,
    limit: options.limit,
    cursor: options.cursor,
  };
  return Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined));
}

/** Whether anything but the page size was asked: an empty page then means none matched. */
function filtered(options: RunsOptions): boolean {
  return Object.keys(runQueryOf(options)).some((name) => name !== 'limit');
}
