import { TierflowError } from '@tierflow/protocol';
import { openAiClient, type LlmEndpoint } from './llm-call.js';
import { endpointName } from './unreachable.js';

/**
 * The ids of the models an OpenAI-compatible endpoint serves (`GET /v1/models`): with vLLM, the
 * base model and every LoRA adapter loaded.
 *
 * @throws TierflowError (retryable, code `llm_call_failed`) when the endpoint cannot be asked.
 */
export async function discoverModels(endpoint: LlmEndpoint, signal: AbortSignal = AbortSignal.timeout(10_000)): Promise<string[]> {
  const client = openAiClient(endpoint);
  try {
    const ids: string[] = [];
    for await (const model of client.models.list({ signal })) ids.push(model.id);
    return [...new Set(ids)].sort();
  } catch (error) {
    throw TierflowError.retryable(`cannot list the models at ${endpointName(client.baseURL)}: ${error instanceof Error ? error.message : String(error)}`, { code: 'llm_call_failed', cause: error });
  }
}
