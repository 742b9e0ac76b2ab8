import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnTiers, type TierProcesses } from '@tierflow/cli';
import { generateKeySet, privateKeyPath, PUBLIC_KEYS_FILE, readKeySetFile } from '@tierflow/runtime/admin';
import { waitFor } from '@tierflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { simPlan } from '../support/runs.js';

// The upper tiers hold the deployment's key set. A Fleet process signs its answers with a fleet key
// of its own making, listed only in its own copy of the public keys: the Dispatcher must not believe it.
let root: string;
let deployment: Deployment;
let fleet: TierProcesses;
const fleetLines: string[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'tierflow-signed-outcomes-'));
  const [deploymentKeys, rogueKeys, fleetKeys] = ['deployment', 'rogue', 'fleet'].map((name) => join(root, name));
  generateKeySet(deploymentKeys!);
  generateKeySet(rogueKeys!);
  const rogueFleet = readKeySetFile(rogueKeys!).keys.find((key) => key.party === 'fleet')!;
  const genuine = readKeySetFile(deploymentKeys!);
  generateKeySet(fleetKeys!);
  writeFileSync(join(fleetKeys!, PUBLIC_KEYS_FILE), JSON.stringify({ ...genuine, keys: [rogueFleet, ...genuine.keys] }));
  copyFileSync(privateKeyPath(rogueKeys!, 'fleet'), privateKeyPath(fleetKeys!, 'fleet'));

  deployment = await startDeployment('signed-outcomes', { TIERFLOW_LOG: 'silent', TIERFLOW_KEYS_DIR: deploymentKeys }, { tiers: ['monitor', 'architect', 'dispatcher'] });
  const env = { ...process.env, OTEL_TRACES_EXPORTER: 'none', REDIS_URL: deployment.redis.url, TIERFLOW_PREFIX: deployment.runtime.prefix, TIERFLOW_LOG: 'silent' };
  fleet = spawnTiers({ ...env, TIERFLOW_KEYS_DIR: fleetKeys }, (_tier, line) => fleetLines.push(line), ['fleet']);
  await waitFor(() => fleetLines.some((line) => line.includes('worker ready')), { timeoutMs: 20_000, description: `the fleet worker ready:\n${fleetLines.join('\n')}` });
}, 60_000);

afterAll(async () => {
  await fleet?.stop();
  await deployment?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("a parent reading its child's outcome", () => {
  it('refuses an outcome signed with a key the deployment does not list: the child counts as failed, signature_invalid', async () => {
    const rootId = await deployment.client.enqueue(simPlan('all_success', [{}]));
    const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 });
    expect(outcome.payload.status).toBe('failed');
    expect(JSON.stringify(outcome.payload)).toMatch(/signed with unknown key \\"fleet-[0-9a-f]{12}\\"/);
  });
});
