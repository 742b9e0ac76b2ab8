import type { RedisClient } from '@tierflow/beads';
import { z } from 'zod';
import { cellPrefix } from '../cells/cells.js';
import type { RuntimeOptions } from '../config/options.js';
import { readStoredRecord } from '../redis/stored-record.js';

/**
 * An agent blocked deployment-wide after a run found it running other instructions than its
 * pin (docs/operations.md#governed-handoffs): written by the tier that found the mismatch, read
 * before every delegation to it, removed only by an operator (`tierflow lock --accept <agent>`).
 */
export const agentBlockSchema = z.strictObject({
  agent_id: z.string().min(1),
  /** When it was found, ISO 8601. */
  since: z.iso.datetime({ offset: true }),
  /** The run that found it, and the delegation refused. */
  root_id: z.string().min(1),
  message_id: z.string().min(1),
  /** What was found: the refusal's detail. */
  detail: z.string(),
});
export type AgentBlock = z.infer<typeof agentBlockSchema>;

/** Where an agent's block is kept, under {@link agentBlocksPrefix}. One key per agent: each write and read is one command. */
export const agentBlockKey = (prefix: string, agentId: string): string => `${prefix}:agent-blocked:${agentId}`;

/**
 * The prefix of a deployment's blocks: its first cell's (the deployment's own with one cell), so
 * one record blocks the agent in every cell, and the cells' ACL rules cover it.
 */
export function agentBlocksPrefix(runtime: Pick<RuntimeOptions, 'prefix' | 'cells'>): string {
  return cellPrefix(runtime.prefix, runtime.cells, 0);
}

/** The command that lifts a block: what every refusal tells an operator to run. */
export const acceptCommand = (agentId: string): string => `tierflow lock --accept ${agentId}`;

/** The refusal's detail for work sent to a blocked agent: since when, which run found it, how to reconcile. Pure. */
export function agentBlockedDetail(block: AgentBlock): string {
  return `agent "${block.agent_id}" is blocked since ${block.since}: run ${block.root_id} found ${block.detail}; run \`${acceptCommand(block.agent_id)}\` to reconcile`;
}

/** The block records of one deployment: set once, read, lifted. */
export class AgentBlocks {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  /**
   * Blocks an agent, unless it is blocked already: the first finding stands (SET NX), so the
   * record keeps the run that found it first. Returns the block in force.
   */
  async block(block: AgentBlock): Promise<AgentBlock> {
    const set = await this.redis.set(agentBlockKey(this.prefix, block.agent_id), JSON.stringify(agentBlockSchema.parse(block)), 'NX');
    return set === 'OK' ? block : ((await this.get(block.agent_id)) ?? block);
  }

  /**
   * The block on an agent, or null. A record that cannot be read still blocks (failing closed),
   * with a detail that says so: only an operator's accept removes it.
   */
  async get(agentId: string): Promise<AgentBlock | null> {
    const text = await this.redis.get(agentBlockKey(this.prefix, agentId));
    return text === null ? null : blockOf(agentId, text);
  }

  /** Lifts the block on an agent; returns the block lifted, or null when there was none. */
  async lift(agentId: string): Promise<AgentBlock | null> {
    const key = agentBlockKey(this.prefix, agentId);
    const text = await this.redis.get(key);
    if (text === null) return null;
    await this.redis.del(key);
    return blockOf(agentId, text);
  }
}

function blockOf(agentId: string, text: string): AgentBlock {
  const read = readStoredRecord(text, agentBlockSchema, { what: 'an agent block', check: (value) => (value.agent_id === agentId ? null : `it names agent "${value.agent_id}"`) });
  if (read.ok) return read.value;
  return { agent_id: agentId, since: new Date(0).toISOString(), root_id: 'unknown', message_id: 'unknown', detail: `an unreadable block record (${read.reason})` };
}
