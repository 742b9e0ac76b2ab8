import { reviseOrStop, type BudgetStanding } from '@tierflow/core';
import type { Usage } from '@tierflow/protocol';
import { rootTaskType } from '../model/root-task-type.js';
import type { TierContext } from '../policy/handler.js';
import { readRevisionStats } from './specialist-history.js';

/**
 * Whether a tier should send work round again (the Architect before a revision, the Monitor
 * before a reset; docs/protocol.md#revisions): core's `reviseOrStop` over how revisions of the
 * run's task type went (`history/revisions/<task type>`, decayed to now) and the run's budget as it
 * stands, against `round`, what the round to repeat used. Unreadable history counts as none (warned);
 * a meter that cannot tell the budget leaves it out.
 */
export async function weighRevision(context: Pick<TierContext, 'assignment' | 'beads' | 'usage' | 'log' | 'now'>, round: Usage): Promise<{ readonly revise: boolean; readonly reason: string | null }> {
  const taskType = rootTaskType(context.assignment.payload.task_data);
  const [stats, standing] = await Promise.all([
    readRevisionStats(context.beads, taskType, context.now(), { log: context.log }),
    context.usage.standing ? context.usage.standing() : Promise.resolve<BudgetStanding | null>(null),
  ]);
  return reviseOrStop({ stats, standing, round });
}
