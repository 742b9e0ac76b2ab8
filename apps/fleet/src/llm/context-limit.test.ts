import { isTierflowError } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { checkContextSize, contextFits } from './context-limit.js';

describe('the context limit', () => {
  it.each([
    [100, null, true],
    [100, undefined, true],
    [100, 100, true],
    [101, 100, false],
    [0, 1, true],
  ])('a prompt of %i tokens under a limit of %s fits: %s', (tokens, limit, fits) => {
    expect(contextFits(tokens, limit)).toBe(fits);
  });

  it('estimates a token per four characters, rounded up, and refuses for good what is over', () => {
    expect(() => checkContextSize('x'.repeat(40), 10, 'writer')).not.toThrow();
    let thrown: unknown;
    try {
      checkContextSize('x'.repeat(41), 10, 'writer');
    } catch (error) {
      thrown = error;
    }
    expect(isTierflowError(thrown)).toBe(true);
    expect(thrown).toMatchObject({ code: 'context_too_large', retryable: false, message: expect.stringContaining("about 11 tokens, over the delegation's max_context_tokens of 10") as unknown });
  });
});
