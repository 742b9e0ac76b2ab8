import { describe, expect, it } from 'vitest';
import { derivedDeploymentId } from './deployment-id.js';
import { deploymentIdFromEnv, resolveRuntimeOptions, runtimeOptionsFromEnv } from './options.js';

describe('a deployment id', () => {
  const base = derivedDeploymentId('redis://127.0.0.1:6379', null, '{tierflow}');

  it('is derived from the Redis address and the prefix, stably', () => {
    expect(base).toMatch(/^d-[0-9a-f]{16}$/);
    expect(derivedDeploymentId('redis://127.0.0.1:6379', null, '{tierflow}')).toBe(base);
  });

  it.each([
    ['other credentials', 'redis://fleet:secret@127.0.0.1:6379', null, '{tierflow}', true],
    ['another database', 'redis://127.0.0.1:6379/3', null, '{tierflow}', true],
    ['the default port left out', 'redis://127.0.0.1', null, '{tierflow}', true],
    ['another prefix', 'redis://127.0.0.1:6379', null, '{other}', false],
    ['another host', 'redis://10.0.0.2:6379', null, '{tierflow}', false],
    ['a Cluster', 'redis://127.0.0.1:6379', ['10.0.0.1:7000'], '{tierflow}', false],
  ] as const)('with %s is the same: %s', (_, url, cluster, prefix, same) => {
    expect(derivedDeploymentId(url, cluster, prefix) === base).toBe(same);
  });

  it('does not depend on the order of the Cluster seeds', () => {
    expect(derivedDeploymentId('redis://x', ['b:1', 'a:1'], '{t}')).toBe(derivedDeploymentId('redis://y', ['a:1', 'b:1'], '{t}'));
  });

  it('is TIERFLOW_DEPLOYMENT_ID when set, in the options as from the environment alone', () => {
    expect(runtimeOptionsFromEnv({ TIERFLOW_DEPLOYMENT_ID: 'eu-prod' }).deploymentId).toBe('eu-prod');
    expect(deploymentIdFromEnv({ TIERFLOW_DEPLOYMENT_ID: 'eu-prod' })).toBe('eu-prod');
    expect(deploymentIdFromEnv({})).toBe(runtimeOptionsFromEnv({}).deploymentId);
    expect(resolveRuntimeOptions({}).deploymentId).toBe(base);
    expect(() => deploymentIdFromEnv({ TIERFLOW_DEPLOYMENT_ID: 'not an id' })).toThrow(/TIERFLOW_DEPLOYMENT_ID/);
    expect(() => resolveRuntimeOptions({ deploymentId: 'not an id' })).toThrow(/deploymentId/);
  });
});
