import { TierflowError } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { DEFAULT_FLEET_TIMEOUT_MS, resolveDispatcherOptions, type DispatcherOptionsInput } from './options.js';

describe('resolveDispatcherOptions', () => {
  it.each<[string, DispatcherOptionsInput | undefined, object]>([
    ['no input', undefined, { routing: { '*': ['sim'] }, fleetTimeoutMs: DEFAULT_FLEET_TIMEOUT_MS }],
    ['routes keep the default fallback', { routing: { code: ['py', 'sim'] } }, { routing: { '*': ['sim'], code: ['py', 'sim'] } }],
    ['a fallback of its own', { routing: { '*': ['gpu', 'sim'] } }, { routing: { '*': ['gpu', 'sim'] } }],
    ['a timeout', { fleetTimeoutMs: 5_000 }, { fleetTimeoutMs: 5_000 }],
  ])('%s', (_name, input, expected) => {
    expect(resolveDispatcherOptions(input)).toMatchObject(expected);
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
