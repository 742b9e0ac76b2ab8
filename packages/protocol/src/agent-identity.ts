import { z } from 'zod';

/**
 * The agent a delegation is meant for, as the agent registry declares it: the receiver refuses
 * the work when it does not run exactly that agent (docs/protocol.md#target-agents).
 */
export const agentIdentitySchema = z
  .looseObject({
    agent_id: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, { message: 'must be 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit' })
      .meta({ description: 'The canonical agent id: the specialist name.' }),
    agent_version: z.string().min(1).meta({ description: 'The agent version, as registered.' }),
    prompt_hash: z
      .string()
      .regex(/^[0-9a-f]{64}$/, { message: 'must be a SHA-256 hash: 64 lowercase hex digits' })
      .meta({ description: "SHA-256 of the agent's prompt and configuration, as registered." }),
  })
  .meta({ title: 'AgentIdentity', description: 'A registered agent: id, version and prompt/config hash.' });
export type AgentIdentity = z.output<typeof agentIdentitySchema>;

/** One entry of the agent registry in Beads (`execution/agents/<id>`): the identity, when a Fleet published it, and the model behind it, if any. */
export const publishedAgentSchema = agentIdentitySchema.extend({
  registered_at: z.iso.datetime({ offset: true }),
  /** The model an LLM specialist calls: with a model server, a LoRA adapter's name. */
  model: z.string().min(1).optional(),
});
export type PublishedAgent = z.output<typeof publishedAgentSchema>;
