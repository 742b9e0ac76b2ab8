import { DEFAULT_CONCURRENCY, DEFAULT_PREFIX, DEFAULT_REDIS_URL } from '@tierflow/runtime/admin';
import { describe, expect, it } from 'vitest';
import { fleetOptionsFromEnv } from './fleet-env.js';
import { FLEET_DEFAULT_TIMEOUT_MS } from './start-fleet.js';

describe('fleetOptionsFromEnv', () => {
  it('fills in the defaults', () => {
    const options = fleetOptionsFromEnv({});
    expect(options).toMatchObject({ runtime: { redisUrl: DEFAULT_REDIS_URL, prefix: DEFAULT_PREFIX }, concurrency: DEFAULT_CONCURRENCY });
    expect(options).not.toHaveProperty('outputTtlMs');
  });

  it('reads every variable, and takes empty ones as unset', () => {
    const options = fleetOptionsFromEnv({ REDIS_URL: 'redis://redis:6380', TIERFLOW_PREFIX: '{cell-2}', FLEET_CONCURRENCY: '32', FLEET_OUTPUT_TTL_MS: '60000' });
    expect(options).toMatchObject({ runtime: { redisUrl: 'redis://redis:6380', prefix: '{cell-2}' }, concurrency: 32, outputTtlMs: 60_000 });
    expect(fleetOptionsFromEnv({ FLEET_CONCURRENCY: '', FLEET_OUTPUT_TTL_MS: '' })).toEqual(fleetOptionsFromEnv({}));
  });

  it('reads the drill settings, which the Fleet no longer takes from process.env itself', () => {
    expect(fleetOptionsFromEnv({})).toMatchObject({ trackCompletions: false });
    expect(fleetOptionsFromEnv({})).not.toHaveProperty('simMaxConcurrent');
    expect(fleetOptionsFromEnv({ TIERFLOW_SIM_MAX_CONCURRENT: '2', TIERFLOW_TRACK_COMPLETIONS: '1' })).toMatchObject({ simMaxConcurrent: 2, trackCompletions: true });
  });

  it.each([
    [{ FLEET_CONCURRENCY: '0' }, 'FLEET_CONCURRENCY'],
    [{ FLEET_CONCURRENCY: 'many' }, 'FLEET_CONCURRENCY'],
    [{ FLEET_OUTPUT_TTL_MS: '1.5' }, 'FLEET_OUTPUT_TTL_MS'],
    [{ TIERFLOW_PREFIX: 'no-hash-tag' }, 'prefix'],
    [{ TIERFLOW_SIM_MAX_CONCURRENT: '0' }, 'TIERFLOW_SIM_MAX_CONCURRENT="0"'],
    [{ TIERFLOW_TRACK_COMPLETIONS: 'yes' }, 'TIERFLOW_TRACK_COMPLETIONS="yes": must be one of 0, 1'],
    [{ TIERFLOW_LOCK_DURATION_MS: '0' }, 'TIERFLOW_LOCK_DURATION_MS="0"'],
  ])('refuses %j, naming %s', (env, name) => {
    expect(() => fleetOptionsFromEnv(env)).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    expect(() => fleetOptionsFromEnv(env)).toThrow(name);
  });
});

it('recommends the protocol’s 30 s Fleet timeout', () => {
  expect(FLEET_DEFAULT_TIMEOUT_MS).toBe(30_000);
});
