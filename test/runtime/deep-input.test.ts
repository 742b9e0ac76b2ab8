import { buildDelegation } from '@tierflow/runtime/admin';
import { redisClient } from '@tierflow/testing';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { finishedJob } from '../support/queue-jobs.js';
import { serveDeployment } from '../support/served.js';

// JSON nested far deeper than any message needs: JSON.parse reads it, but recursive code after it
// (a schema's parse, JSON.stringify) runs out of stack. Refused as bad input, kept as a dead letter.
const DEPTH = 300_000;
const deepText = (value = 'x') => '['.repeat(DEPTH) + JSON.stringify(value) + ']'.repeat(DEPTH);

let deployment: Deployment;
let redis: Redis;

beforeAll(async () => {
  deployment = await startDeployment('deep-input', { TIERFLOW_LOG: 'silent' });
  redis = redisClient(deployment.redis.url);
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  await deployment?.stop();
});

/** Plants a job whose data is `text` verbatim (a queue client would have to serialise it first). */
async function plant(queueName: string, id: string, text: string) {
  const queue = new Queue(queueName, { connection: redis, prefix: deployment.runtime.prefix });
  try {
    const job = await queue.add('test', { placeholder: true }, { jobId: id, attempts: 3, delay: 3_600_000 });
    await redis.hset(`${deployment.runtime.prefix}:${queueName}:${job.id!}`, 'data', text);
    await job.promote();
    return await finishedJob(queue, id);
  } finally {
    await queue.close();
  }
}

describe('input nested too deep', () => {
  it.each([
    [
      'fleet',
      () =>
        JSON.stringify(buildDelegation('ROUTING_DISPATCHER', 'deep-fleet', null, { task_type: 'general', objective: 'x', specialist_hint: 'sim' }, Date.now())).replace(
          '"task_data":{}',
          `"task_data":{"deep":${deepText()}}`,
        ),
    ],
    ['monitor', () => `{"kind":"root","root_id":"deep-monitor","submitted_at":"${new Date().toISOString()}","objective":{"objective":"x","task_data":${deepText()}}}`],
  ])('on the %s queue is refused at once and kept as a dead letter with its reason', async (queue, text) => {
    const id = `deep-${queue}`;
    const data = text();
    const job = await plant(queue, id, data);
    expect(await job.isFailed()).toBe(true);
    expect(job.attemptsMade).toBe(1);
    expect(job.failedReason).toContain('nested deeper than');
    const letter = await deployment.client.deadLetters().get(`${queue}-${id}`);
    expect(letter?.reason).toContain('nested deeper than');
    // Kept whole, as the text it came as, and replayed only corrected.
    expect(letter).toMatchObject({ data, data_encoding: 'json_text' });
    await expect(deployment.client.deadLetters().replay(`${queue}-${id}`)).rejects.toThrow('replay it corrected');
  });

  it('in an objective sent to the API is refused as invalid (400), naming where', async () => {
    const served = await serveDeployment(deployment.runtime);
    try {
      const body = `{"objective":"x","task_data":{"deep":${deepText()}}}`;
      const response = await fetch(`${served.url}/api/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: { code: 'invalid_objective', message: expect.stringContaining('$.task_data.deep[0]') as unknown } });
    } finally {
      await served.close();
    }
  });
});
