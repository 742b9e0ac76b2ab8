import { readTierflowVars, runtimeOptionsFromEnv, TierflowClient } from '@tierflow/runtime';
import { EXIT, type CliIo } from '../io.js';

export const DEFAULT_JAEGER_URL = 'http://localhost:16686';

/** `tierflow trace <root-id>`: the run's trace id and where to see it in Jaeger (JAEGER_URL). */
export async function traceCommand(rootId: string, io: CliIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const client = await TierflowClient.connect(runtimeOptionsFromEnv(env));
  try {
    const traceId = await client.traceId(rootId);
    if (!traceId) {
      io.stderr(`no trace for ${rootId}: unknown root, not started yet, not sampled (OTEL_TRACES_SAMPLER), or its Monitor exports no spans (OTEL_TRACES_EXPORTER=none)\n`);
      return EXIT.invalid;
    }
    const jaeger = (readTierflowVars(env, ['JAEGER_URL']).JAEGER_URL ?? DEFAULT_JAEGER_URL).replace(/\/+$/, '');
    io.stdout(`${traceId}\n${jaeger}/trace/${traceId}\n`);
    return EXIT.ok;
  } finally {
    await client.close();
  }
}
