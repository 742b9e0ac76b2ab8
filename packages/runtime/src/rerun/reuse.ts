import { isOutcome, validate, type OutcomeMessage, type TierName } from '@tierflow/protocol';
import type { RedisClient } from '@tierflow/beads';
import type { OutcomeDraft } from '../policy/handler.js';
import { verifiedOutcome } from '../security/outcome-check.js';
import type { SigningConfig } from '../security/signing-keys.js';
import type { NodeRerun } from './node-rerun.js';

/** A fork's node answering with what the original node answered. */
export interface Reused {
  /** The original node. */
  readonly from: string;
  readonly draft: OutcomeDraft;
}

const NO_USAGE = { tokens_in: 0, tokens_out: 0, cost_usd: 0, llm_calls: 0 };

/**
 * The outcome a fork's node reuses, from the rerun's reuse hash (`rerunKeys(…).reuse`, by node
 * path): the original node's outcome message, checked as its parent would have checked it — an
 * outcome, answering the original node, signed by this tier where the deployment signs. It
 * charges nothing (its usage is zero: nothing ran) and names the node it came from. Null when
 * none is kept, or what is kept does not hold: the node then runs.
 */
export async function readReused(redis: RedisClient, reuseKey: string, rerun: NodeRerun, tier: TierName, signing: SigningConfig | null, now: number): Promise<Reused | null> {
  const text = await redis.hget(reuseKey, rerun.path);
  if (text === null) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = validate(raw);
  if (!parsed.ok || !isOutcome(parsed.value)) return null;
  const outcome: OutcomeMessage = parsed.value;
  if (outcome.correlation_id !== rerun.original || outcome.source_tier !== tier) return null;
  const checked = verifiedOutcome(raw, outcome, tier, rerun.original, now, signing);
  if (checked !== outcome) return null;
  const { execution_time_ms: _time, ...payload } = outcome.payload;
  const resources = { ...(payload.resources_used ?? {}), usage: NO_USAGE, reused_from: rerun.original };
  return { from: rerun.original, draft: { ...payload, resources_used: resources } };
}
