import type { TierSlug } from '@tierflow/protocol';
import type { RedisClient } from '@tierflow/beads';
import type { TierLogger } from '../policy/handler.js';
import type { SigningConfig } from '../security/signing-keys.js';
import type { ControlKeys } from '../redis/keys.js';
import { readRace } from './control-records.js';
import type { TierCanceller } from './tier-canceller.js';

export interface RaceDeps {
  readonly redis: RedisClient;
  readonly keys: ControlKeys;
  /** The tier of the children racing, as a party: it records the winner and cancels the losers. */
  readonly party: TierSlug;
  readonly canceller: TierCanceller;
  readonly runtime: { readonly signing: SigningConfig | null; readonly keepFinishedMs: number };
  readonly log: TierLogger;
}

export interface RaceWin {
  /** The child that succeeded. */
  readonly winner: string;
  /** The round's key (`<parent id>.<round>`) and its race record, as the parent wrote it. */
  readonly raceKey: string;
  readonly race: string;
  /** The parent's tier, as a party: the only one that may write the race record. */
  readonly parent: TierSlug;
}

/**
 * first_success: the first child to succeed cancels its siblings before it answers, so the
 * parent resumes as soon as they have answered, not when they would have finished. Only one
 * child wins a round: the first to record itself.
 */
export async function winRace(deps: RaceDeps, { winner, raceKey, race, parent }: RaceWin): Promise<void> {
  const { redis, keys, party, runtime } = deps;
  const won = await redis.set(keys.raceWinner(party, raceKey), winner, 'PX', runtime.keepFinishedMs, 'NX');
  if (won !== 'OK') return;
  const members = readRace(race, runtime.signing, parent);
  if (!members) {
    deps.log.warn('ignored a first_success race record that is not its parent tier’s list of the round', { key: keys.race(parent, raceKey) });
    return;
  }
  const siblings = members.filter((id) => id !== winner);
  // The mark names the winner: a sibling honours a mark by its own tier only from its round's winner.
  await Promise.all(siblings.map((id) => deps.canceller.cancel(id, `${winner} succeeded first (first_success)`, winner)));
}
