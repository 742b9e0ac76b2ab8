import type { AgentCard, AgentSkill } from '@a2a-js/sdk';
import { PROTOCOL_VERSION } from '@tierflow/protocol';
import type { WorkerBeat } from '@tierflow/runtime';

/** Where the JSON-RPC endpoint answers, under the server's origin. */
export const A2A_PATH = '/a2a';

/** The A2A protocol version the endpoint speaks (the SDK's). */
export const A2A_VERSION = '1.0';

/** The name of the card's security scheme: the server's bearer token. */
export const BEARER_SCHEME = 'bearer';

export interface CardFacts {
  /** The server's origin as the client reached it, e.g. `https://tierflow.example.com`. */
  readonly origin: string;
  /** Whether requests need the bearer token (TIERFLOW_API_TOKEN). */
  readonly tokenRequired: boolean;
  /** The specialists the live Fleet workers serve. */
  readonly specialists: readonly string[];
}

/** The specialists the live Fleet workers advertise, each once, sorted. Pure. */
export function liveSpecialists(workers: readonly WorkerBeat[]): string[] {
  return [...new Set(workers.filter((worker) => worker.tier === 'SPECIALIZED_FLEET').flatMap((worker) => worker.specialists ?? []))].sort();
}

const MODES = ['text/plain', 'application/json'];

function skill(id: string, name: string, description: string, examples: string[]): AgentSkill {
  return { id, name, description, tags: ['tierflow'], examples, inputModes: [], outputModes: [], securityRequirements: [] };
}

/** A skill per specialist the Fleet serves; one general skill while none does. */
function skillsOf(specialists: readonly string[]): AgentSkill[] {
  if (specialists.length === 0) {
    return [
      skill('objective', 'Objective', 'Runs an objective through the four tiers: planned, split into subtasks, executed by specialists, aggregated and checked.', ['Summarise the release notes']),
    ];
  }
  return specialists.map((name) =>
    skill(name, name, `The Fleet's ${name} specialist: a subtask of an objective file's plan reaches it with "specialist_hint": "${name}", or by the Dispatcher's routes.`, []),
  );
}

/**
 * The deployment as one A2A agent: its JSON-RPC interface under the origin the client used,
 * streaming, the bearer token when the server asks for one, and what its Fleet can do. Pure.
 */
export function agentCard(facts: CardFacts): AgentCard {
  return {
    name: 'Tierflow',
    description:
      'A Tierflow deployment. A message’s text is an objective (a data part may carry a whole objective file: plan, constraints, budget); ' +
      'the task is the run, its artifacts the outcome’s. A run that asks a question is input-required until a follow-up message answers it.',
    supportedInterfaces: [{ url: `${facts.origin}${A2A_PATH}`, protocolBinding: 'JSONRPC', protocolVersion: A2A_VERSION, tenant: '' }],
    provider: undefined,
    version: PROTOCOL_VERSION,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: facts.tokenRequired
      ? { [BEARER_SCHEME]: { scheme: { $case: 'httpAuthSecurityScheme', value: { scheme: 'Bearer', bearerFormat: '', description: 'The server’s API token (TIERFLOW_API_TOKEN).' } } } }
      : {},
    securityRequirements: facts.tokenRequired ? [{ schemes: { [BEARER_SCHEME]: { list: [] } } }] : [],
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills: skillsOf(facts.specialists),
    signatures: [],
  };
}
