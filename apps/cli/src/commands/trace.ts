import { readTierflowVars } from '@tierflow/runtime/admin';
import { runtimeOptionsFromEnv, TierflowClient } from '@tierflow/runtime';
import { otlpCollector } from '@tierflow/telemetry';
import { EXIT, type CliIo } from '../io.js';

export const DEFAULT_JAEGER_URL = 'http://localhost:16686';

/**
 * `tierflow trace <root-id>`: the run's trace id and where to see it in Jaeger (JAEGER_URL), once
 * its Monitor's spans reached a collector; a link to a trace no collector received leads nowhere.
 */
export async function traceCommand(rootId: string, io: CliIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const client = await TierflowClient.connect(runtimeOptionsFromEnv(env));
  try {
    const trace = await client.runTrace(rootId);
    if (!trace) {
      io.stderr(`no trace for ${rootId}: unknown root, not started yet, not sampled (OTEL_TRACES_SAMPLER), or its Monitor exports no spans (OTEL_TRACES_EXPORTER=none)\n`);
      return EXIT.invalid;
    }
    if (!trace.exported) {
      io.stderr(`no spans of run ${rootId} were exported (trace ${trace.traceId}): ${notExported(env)}\n`);
      return EXIT.invalid;
    }
    const jaeger = (readTierflowVars(env, ['JAEGER_URL']).JAEGER_URL ?? DEFAULT_JAEGER_URL).replace(/\/+$/, '');
    io.stdout(`${trace.traceId}\n${jaeger}/trace/${trace.traceId}\n`);
    return EXIT.ok;
  } finally {
    await client.close();
  }
}

/** Why a run's spans may not have been exported, as far as this environment tells (the workers' should be the same). */
function notExported(env: NodeJS.ProcessEnv): string {
  const collector = otlpCollector(env);
  // Only the OTLP exporters say which traces they delivered: another one's spans may be there, unmarked.
  if (collector === null) return `OTEL_TRACES_EXPORTER=${env.OTEL_TRACES_EXPORTER?.trim() ?? ''} does not tell which traces it delivered; look for the trace id where it sends them`;
  return `the collector at ${collector} did not receive them, or not yet`;
}
