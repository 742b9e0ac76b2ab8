import type { OutcomeMessage } from '@tierflow/protocol';
import { buildDelegation, jobOptions } from '@tierflow/runtime/admin';
import { type ObjectiveFile } from '@tierflow/runtime';
import { redisClient } from '@tierflow/testing';
import { QueueEvents } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { useDeployment } from '../support/shared-deployment.js';
import { simPlan, treeNodes } from '../support/runs.js';

// expected_output_schema (docs/protocol.md#expected-output-schemas) over real processes: the
// Fleet's outcome is held to the schema its subtask named.
const shared = useDeployment('expected-output', { TIERFLOW_LOG: 'silent' });

/** A text artifact of some bytes, and a confidence of at least 0.8. */
const SCHEMA = {
  type: 'object',
  required: ['artifacts', 'confidence'],
  properties: {
    confidence: { type: 'number', minimum: 0.8 },
    artifacts: { type: 'array', minItems: 1, items: { type: 'object', properties: { artifact_type: { const: 'text' } } } },
  },
};

function withSchema(sim: Record<string, unknown>, schema: Record<string, unknown>): ObjectiveFile {
  return simPlan('all_success', [sim], { expected_output_schema: schema });
}

async function leafOutcome(rootId: string): Promise<OutcomeMessage> {
  const [leaf] = treeNodes((await shared.deployment.client.tree(rootId))!, 'SPECIALIZED_FLEET');
  expect(leaf?.attempts).toBe(1);
  return (await shared.fleet.getJob(leaf!.id))!.returnvalue as OutcomeMessage;
}

describe('an expected output schema', () => {
  it('lets a result that matches it through', async () => {
    const rootId = await shared.deployment.client.enqueue(withSchema({ output_bytes: 10, confidence: 0.9 }, SCHEMA));
    expect((await shared.deployment.client.waitForResult(rootId, { timeoutMs: 20_000 })).payload.status).toBe('success');
    expect((await leafOutcome(rootId)).payload).toMatchObject({ status: 'success', error_type: null });
  });

  it('turns a result that does not match into failed/format_mismatch, naming every mismatch, not retried', async () => {
    const rootId = await shared.deployment.client.enqueue(withSchema({ confidence: 0.7 }, SCHEMA));
    const outcome = await shared.deployment.client.waitForResult(rootId, { timeoutMs: 20_000 });
    const leaf = await leafOutcome(rootId);
    expect(leaf.payload).toMatchObject({ status: 'failed', error_type: 'format_mismatch', recoverable: false, confidence: 0 });
    expect(leaf.payload.error_detail).toBe('$.confidence: must be >= 0.8; $.artifacts: must NOT have fewer than 1 items');
    // Permanent, so no revision and no reset: the root fails with the mismatch in its detail.
    expect(outcome.payload).toMatchObject({ status: 'failed', recoverable: false, resources_used: { revisions: 0, resets: 0 } });
    expect(outcome.payload.error_detail).toContain('$.confidence: must be >= 0.8');
  });

  it('with a pattern that backtracks for hours on the result still gets its outcome, promptly', async () => {
    // 60 bytes of sim output that never end in X: a backtracking engine tries about 10^12 splits.
    const schema = { properties: { artifacts: { items: { properties: { inline_content: { pattern: '^(.|..)+X$' } } } } } };
    const rootId = await shared.deployment.client.enqueue(withSchema({ output_bytes: 60 }, schema));
    await shared.deployment.client.waitForResult(rootId, { timeoutMs: 20_000 });
    const leaf = await leafOutcome(rootId);
    expect(leaf.payload).toMatchObject({ status: 'failed', error_type: 'format_mismatch' });
    expect(leaf.payload.error_detail).toBe('$.artifacts[0].inline_content: must match pattern "^(.|..)+X$"');
  });

  it.each([
    ['not a JSON Schema', { type: 'no-such-type' }, /expected_output_schema: not a usable JSON Schema/],
    ['with a pattern a linear-time engine cannot run', { properties: { s: { pattern: '(a)\\1' } } }, /pattern "\(a\)\\\\1" cannot be used: .*without backreferences or lookaround/],
  ])('is refused at enqueue when it is %s', async (_what, schema, reason) => {
    await expect(shared.deployment.client.enqueue(withSchema({}, schema))).rejects.toThrow(reason);
  });

  it.each([
    ['bad-schema-1', { minimum: 'zero' }],
    ['bad-schema-2', { properties: { summary: { pattern: '^(?!x)' } } }],
  ])('makes a delegation that slips an unusable one past the objective file answer invalid_output_schema (%s)', async (id, schema) => {
    const message = buildDelegation('ROUTING_DISPATCHER', id, null, { task_type: 'general', objective: 'x', specialist_hint: 'sim', expected_output_schema: schema }, Date.now());
    const eventsConnection = redisClient(shared.deployment.redis.url);
    const events = new QueueEvents('fleet', { connection: eventsConnection, prefix: shared.deployment.runtime.prefix });
    await events.waitUntilReady();
    try {
      const job = await shared.fleet.add('general', message, jobOptions(message.id, 2, shared.deployment.runtime));
      const outcome = (await job.waitUntilFinished(events, 10_000)) as OutcomeMessage;
      expect(outcome.payload).toMatchObject({ status: 'failed', error_type: 'invalid_output_schema', recoverable: false });
    } finally {
      await events.close();
      eventsConnection.disconnect();
    }
  });
});
