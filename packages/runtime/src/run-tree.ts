import { isOutcome, tierBelow, validate, type OutcomeMessage, type TierName } from '@tierflow/protocol';
import { Queue, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { ROOT_TASK_TYPE } from './assignment.js';
import { QUEUE_OF } from './queues.js';

/** One node of `tierflow status --json`. */
export interface RunNode {
  readonly id: string;
  readonly tier: TierName;
  readonly task_type: string;
  readonly specialist: string | null;
  /** The outcome's status once finished; the queue state (`waiting`, `active`, `waiting-children`, `delayed`, …) before. */
  readonly status: string;
  readonly confidence: number | null;
  readonly attempts: number;
  readonly started_at: string | null;
  readonly finished_at: string | null;
  readonly children: RunNode[];
}

/** Reads a run's tree from the queues, from the root job down through each job's dependencies. */
export async function readRunTree(redis: Redis, prefix: string, rootId: string): Promise<RunNode | null> {
  const queues = new Map<TierName, Queue>();
  const queueOf = (tier: TierName): Queue => {
    let queue = queues.get(tier);
    if (!queue) queues.set(tier, (queue = new Queue(QUEUE_OF[tier], { connection: redis, prefix })));
    return queue;
  };
  try {
    return await readNode(queueOf, 'PROGRESS_MONITOR', rootId);
  } finally {
    // The queues share the caller's connection: closing them must not close it.
    await Promise.all([...queues.values()].map((queue) => queue.close()));
  }
}

async function readNode(queueOf: (tier: TierName) => Queue, tier: TierName, id: string): Promise<RunNode | null> {
  const queue = queueOf(tier);
  const job = await queue.getJob(id);
  if (!job) return null;
  const state = await job.getState();
  const outcome = state === 'completed' ? outcomeOf(job.returnvalue) : null;
  const below = tierBelow(tier);
  const children: RunNode[] = [];
  if (below) {
    const childQueue = queueOf(below);
    for (const childId of await childIds(job, childQueue.qualifiedName)) {
      const node = await readNode(queueOf, below, childId);
      if (node) children.push(node);
    }
  }
  const payload = (job.data as { payload?: { task_type?: string; specialist_hint?: string | null } }).payload;
  const specialist = payload?.specialist_hint ?? stringOr(outcome?.payload.resources_used.specialist);
  return {
    id,
    tier,
    task_type: payload?.task_type ?? ROOT_TASK_TYPE,
    specialist: tier === 'SPECIALIZED_FLEET' ? specialist : null,
    status: outcome?.payload.status ?? state,
    confidence: outcome?.payload.confidence ?? null,
    // BullMQ counts an attempt when it ends (failed, retried or completed); a running one is not counted yet.
    attempts: job.attemptsMade + (state === 'active' ? 1 : 0),
    started_at: job.processedOn ? new Date(job.processedOn).toISOString() : null,
    finished_at: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
    children,
  };
}

/** Child job ids from the parent's dependencies, in delegation order (round, then index). */
async function childIds(job: Job, childQueueName: string): Promise<string[]> {
  const dependencies = await job.getDependencies();
  const keys = [
    ...Object.keys(dependencies.processed ?? {}),
    ...(dependencies.unprocessed ?? []),
    ...Object.keys(dependencies.ignored ?? {}),
    ...(dependencies.failed ?? []),
  ];
  const ids = [...new Set(keys.filter((key) => key.startsWith(`${childQueueName}:`)).map((key) => key.slice(childQueueName.length + 1)))];
  return ids.sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
}

function outcomeOf(value: unknown): OutcomeMessage | null {
  const result = validate(value);
  return result.ok && isOutcome(result.value) ? result.value : null;
}

function stringOr(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
