import { tierAbove, tierBelow, type TierName } from '@tierflow/protocol';
import type { ControlKeys } from '../redis/keys.js';
import type { JobFinder } from '../redis/job-finder.js';
import type { Family, FamilyJob } from '../redis/job-finisher.js';
import { partyOf } from '../security/party.js';
/**
 * What a completion of this tier's jobs looks at (see JobFinisher): the set of the children a job
 * sent, at a tier that delegates, and its parent's, for a parent on the tier above.
 */
export function familyOf(tier: TierName, keys: ControlKeys, finder: JobFinder): (job: FamilyJob) => Family {
  const below = tierBelow(tier);
  const above = tierAbove(tier);
  const parentQueue = above ? finder.queue(above).qualifiedName : null;
  return (job) => {
    const parent = job.parent;
    return {
      ownChildren: below ? keys.children(partyOf(tier), job.id!) : null,
      parent:
        above && parent?.id && parent.queueKey === parentQueue && job.parentKey
          ? { key: job.parentKey, ownChildren: keys.children(partyOf(above), parent.id), queueKey: parent.queueKey, id: parent.id }
          : null,
    };
  };
}
