import { TierflowError } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { DEFAULT_EXPLORATION, DEFAULT_FLEET_TIMEOUT_MS, DEFAULT_OBJECTIVE_WEIGHT, resolveDispatcherOptions, type DispatcherOptionsInput } from './options.js';

describe('resolveDispatcherOptions', () => {
  it.each<[string, DispatcherOptionsInput | undefined, object]>([
    ['no input', undefined, { routing: { '*': ['sim'] }, fleetTimeoutMs: DEFAULT_FLEET_TIMEOUT_MS }],
    ['routes keep the default fallback', { routing: { code: ['py', 'sim'] } }, { routing: { '*': ['sim'], code: ['py', 'sim'] } }],
    ['a fallback of its own', { routing: { '*': ['gpu', 'sim'] } }, { routing: { '*': ['gpu', 'sim'] } }],
    ['a timeout', { fleetTimeoutMs: 5_000 }, { fleetTimeoutMs: 5_000 }],
  ])('%s', (_name, input, expected) => {
    expect(resolveDispatcherOptions(input)).toMatchObject(expected);
  });

  it('routes by the table unless told otherwise, and resolves the objective a word names', () => {
    expect(resolveDispatcherOptions()).toMatchObject({ routingMode: 'fixed', routingObjective: { optimize: 'success', weight: 0 }, exploration: DEFAULT_EXPLORATION, random: Math.random });
    expect(resolveDispatcherOptions({ routingMode: 'learned', routingObjective: 'cost', exploration: 0 })).toMatchObject({
      routingMode: 'learned',
      routingObjective: { optimize: 'cost', weight: DEFAULT_OBJECTIVE_WEIGHT },
      exploration: 0,
    });
    expect(resolveDispatcherOptions({ routingObjective: { optimize: 'latency', weight: 0.2 } }).routingObjective).toEqual({ optimize: 'latency', weight: 0.2 });
  });

  it('draws from a seeded sequence when given a seed, the same one each time', () => {
    const draws = (seed: number): number[] => {
      const { random } = resolveDispatcherOptions({ routingSeed: seed });
      return [random(), random(), random()];
    };
    expect(draws(42)).toEqual(draws(42));
    expect(draws(42)).not.toEqual(draws(43));
  });

  it('refuses a bad routing mode, objective or exploration, saying what would do', () => {
    const message = (input: unknown): string => {
      try {
        resolveDispatcherOptions(input as DispatcherOptionsInput);
      } catch (caught) {
        return (caught as Error).message;
      }
      return '';
    };
    expect(message({ routingMode: 'learnt' })).toContain('routingMode: must be fixed, learned or shadow');
    expect(message({ routingObjective: 'speed' })).toContain('routingObjective: must be success, cost, latency, or { optimize, weight } with a weight from 0 to 1');
    expect(message({ exploration: 1.5 })).toContain('exploration: must be from 0 to 1');
  });

  it('refuses bad options, naming every problem', () => {
    const bad = { routing: { code: [] }, fleetTimeoutMs: -1, colour: 'red' } as unknown as DispatcherOptionsInput;
    const error = (() => {
      try {
        resolveDispatcherOptions(bad);
      } catch (caught) {
        return caught;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(TierflowError);
    expect(error).toMatchObject({ code: 'invalid_config', retryable: false });
    const message = (error as Error).message;
    expect(message).toContain('routing.code');
    expect(message).toContain('fleetTimeoutMs');
    expect(message).toContain('colour');
  });
});
