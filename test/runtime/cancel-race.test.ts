import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { simPlan } from '../support/runs.js';

// A cancellation that arrives while a parent is adding its children must still reach them: the
// roots below are cancelled at every moment of their first passes, and each must answer at once,
// not when its leaf would have finished (20 s) or timed out.
let deployment: Deployment;

beforeAll(async () => {
  deployment = await startDeployment('cancel-race', { TIERFLOW_LOG: 'silent' });
}, 60_000);

afterAll(async () => {
  await deployment?.stop();
});

describe('a cancellation racing a parent that is delegating', () => {
  it('stops every root, whichever pass it catches', async () => {
    const roots: string[] = [];
    for (let i = 0; i < 24; i++) {
      const rootId = await deployment.client.enqueue(simPlan('all_success', [{ delay_ms: 20_000 }, { delay_ms: 20_000 }]));
      roots.push(rootId);
      // Staggered: the cancel lands before, during and after each tier's first pass.
      await new Promise((resolve) => setTimeout(resolve, (i % 8) * 3));
      await deployment.client.cancel(rootId, { reason: 'raced' });
    }
    const outcomes = await Promise.all(roots.map((rootId) => deployment.client.waitForResult(rootId, { timeoutMs: 10_000 })));
    expect(outcomes.map((outcome) => outcome.payload.status)).toEqual(roots.map(() => 'cancelled'));
  }, 60_000);
});
