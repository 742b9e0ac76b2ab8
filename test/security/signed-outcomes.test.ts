import { spawnTiers, type TierProcesses } from '@tierflow/cli';
import { waitFor } from '@tierflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { simPlan } from '../support/runs.js';

// The upper tiers sign with k1 only; a Fleet process accepts k1 but answers signed with k2, a key
// its parent does not hold: the Dispatcher must not believe what it reads.
const K1 = `k1:${'a'.repeat(40)}`;
const K2 = `k2:${'b'.repeat(40)}`;

let deployment: Deployment;
let fleet: TierProcesses;
const fleetLines: string[] = [];

beforeAll(async () => {
  deployment = await startDeployment('signed-outcomes', { TIERFLOW_LOG: 'silent', TIERFLOW_SIGNING_KEY: K1 }, { tiers: ['monitor', 'architect', 'dispatcher'] });
  const env = { ...process.env, OTEL_TRACES_EXPORTER: 'none', REDIS_URL: deployment.redis.url, TIERFLOW_PREFIX: deployment.runtime.prefix, TIERFLOW_LOG: 'silent' };
  fleet = spawnTiers({ ...env, TIERFLOW_SIGNING_KEY: K2, TIERFLOW_SIGNING_KEY_PREVIOUS: K1 }, (_tier, line) => fleetLines.push(line), ['fleet']);
  await waitFor(() => fleetLines.some((line) => line.includes('worker ready')), { timeoutMs: 20_000, description: `the fleet worker ready:\n${fleetLines.join('\n')}` });
}, 60_000);

afterAll(async () => {
  await fleet?.stop();
  await deployment?.stop();
});

describe("a parent reading its child's outcome", () => {
  it('refuses an outcome signed with a key it does not accept: the child counts as failed, signature_invalid', async () => {
    const rootId = await deployment.client.enqueue(simPlan('all_success', [{}]));
    const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 });
    expect(outcome.payload.status).toBe('failed');
    expect(JSON.stringify(outcome.payload)).toContain('signed with unknown key \\"k2\\"');
  });
});
