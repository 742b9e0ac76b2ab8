import { TierflowError } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { defaultRegistry, SpecialistRegistry } from './registry.js';
import { defineSpecialist, isSpecialistUnavailable, SpecialistUnavailableError, type Specialist } from './specialist.js';

const echo = (name: string): Specialist => ({ name, version: '1.0.0', run: ({ objective }) => Promise.resolve({ summary: objective, confidence: 1 }) });

describe('defineSpecialist', () => {
  it.each(['python-lora', 'sim', 'test_lora.v2', 'A1'])('accepts %s and returns the same object', (name) => {
    const spec = echo(name);
    expect(defineSpecialist(spec)).toBe(spec);
  });

  it.each(['', ' ', 'python lora', '-lead', 'a:b', 'x'.repeat(65)])('refuses the name %j', (name) => {
    expect(() => defineSpecialist(echo(name))).toThrow(expect.objectContaining({ code: 'invalid_specialist', retryable: false }));
  });

  it('refuses an empty version and a missing run', () => {
    expect(() => defineSpecialist({ ...echo('x'), version: '' })).toThrow(/version must be a non-empty string/);
    expect(() => defineSpecialist({ name: 'x', version: '1' } as unknown as Specialist)).toThrow(/run must be a function/);
  });
});

describe('SpecialistUnavailableError', () => {
  it('is a permanent TierflowError with code specialist_unavailable', () => {
    const error = new SpecialistUnavailableError('model not loaded', { cause: 'oom' });
    expect(error).toBeInstanceOf(TierflowError);
    expect(error).toMatchObject({ name: 'SpecialistUnavailableError', code: 'specialist_unavailable', retryable: false, cause: 'oom' });
    expect(isSpecialistUnavailable(error)).toBe(true);
  });

  it('is recognised by its code from another copy of the package, and not confused with other errors', () => {
    expect(isSpecialistUnavailable(TierflowError.permanent('x', { code: 'specialist_unavailable' }))).toBe(true);
    expect(isSpecialistUnavailable(TierflowError.retryable('x', { code: 'busy', kind: 'unavailable' }))).toBe(false);
    expect(isSpecialistUnavailable(new Error('specialist_unavailable'))).toBe(false);
  });
});

describe('SpecialistRegistry', () => {
  it('registers, finds and lists specialists', () => {
    const registry = new SpecialistRegistry().register(echo('b')).register(echo('a'));
    expect(registry.get('a')?.name).toBe('a');
    expect(registry.get('c')).toBeUndefined();
    expect(registry.names()).toEqual(['a', 'b']);
  });

  it('refuses a second specialist of the same name', () => {
    const registry = new SpecialistRegistry([echo('a')]);
    expect(() => registry.register(echo('a'))).toThrow(expect.objectContaining({ code: 'duplicate_specialist' }));
  });

  it('checks what it registers', () => {
    expect(() => new SpecialistRegistry().register(echo('no spaces'))).toThrow(expect.objectContaining({ code: 'invalid_specialist' }));
  });

  it('starts with sim in the default registry, and each call gives a fresh one', () => {
    const registry = defaultRegistry();
    expect(registry.names()).toEqual(['sim']);
    registry.register(echo('python-lora'));
    expect(defaultRegistry().names()).toEqual(['sim']);
  });
});
