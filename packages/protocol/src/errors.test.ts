import { describe, expect, it } from 'vitest';
import { errorKindOf, isTierflowError, TierflowError } from './errors.js';
import { InvalidMessageError } from './validate.js';

describe('TierflowError', () => {
  it("takes its kind from its code's entry", () => {
    const error = TierflowError.permanent('REDIS_URL is not a URL', { code: 'invalid_config' });
    expect([error.code, error.kind, error.retryable]).toEqual(['invalid_config', 'invalid_input', false]);
    expect(new InvalidMessageError([]).kind).toBe('invalid_input');
  });

  it('gives the factories their default codes', () => {
    const transient = TierflowError.retryable('busy');
    const permanent = TierflowError.permanent('broken');
    expect([transient.code, transient.kind, transient.retryable]).toEqual(['transient', 'unavailable', true]);
    expect([permanent.code, permanent.kind, permanent.retryable]).toEqual(['permanent', 'internal', false]);
  });

  it('takes the kind a code of its own says', () => {
    const error = TierflowError.permanent('no such repository', { code: 'repo_not_found', kind: 'not_found' });
    expect([error.code, error.kind]).toEqual(['repo_not_found', 'not_found']);
  });

  it('keeps the cause', () => {
    const cause = new Error('ECONNREFUSED');
    expect(TierflowError.retryable('down', { code: 'llm_call_failed', cause }).cause).toBe(cause);
  });

  it('refuses a misspelt code, and a foreign code without a kind, at compile time', () => {
    // @ts-expect-error -- not one of Tierflow's codes, and no kind
    const misspelt = TierflowError.permanent('x', { code: 'invalid_confg' });
    expect(misspelt.kind).toBe('internal');
  });
});

describe('errorKindOf', () => {
  it("reads a TierflowError's kind", () => {
    expect(errorKindOf(TierflowError.permanent('x', { code: 'not_waiting' }))).toBe('conflict');
    expect(errorKindOf(TierflowError.permanent('x', { code: 'mine', kind: 'forbidden' }))).toBe('forbidden');
  });

  it('derives it from the code of one from another copy of the package, which may carry none', () => {
    const copy = Object.assign(new Error('cannot reach Redis'), { code: 'redis_unreachable', retryable: true });
    expect(isTierflowError(copy)).toBe(true);
    expect(errorKindOf(copy)).toBe('unavailable');
    expect(errorKindOf(Object.assign(new Error('x'), { code: 'mine', retryable: false, kind: 'not_found' }))).toBe('not_found');
    expect(errorKindOf(Object.assign(new Error('x'), { code: 'mine', retryable: false, kind: 'bogus' }))).toBe('internal');
  });

  it('calls anything else internal', () => {
    expect(errorKindOf(new Error('boom'))).toBe('internal');
    expect(errorKindOf('boom')).toBe('internal');
    expect(errorKindOf(undefined)).toBe('internal');
  });
});
