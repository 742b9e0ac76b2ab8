import { describe, expect, it } from 'vitest';
import { runtimeOptionsFromEnv } from '../../config/options.js';
import { captureContentOf, conventionsOf, resolveGenAiOptions } from './conventions.js';

describe('conventionsOf', () => {
  it.each([
    [undefined, 'v1.41'],
    ['', 'v1.41'],
    ['http', 'v1.41'],
    ['gen_ai_latest_experimental', 'latest'],
    ['http/dup, gen_ai_latest_experimental', 'latest'],
    [' GEN_AI_LATEST_EXPERIMENTAL ', 'latest'],
    ['gen_ai_latest', 'v1.41'],
    ['gen_ai_latest_experimental_not', 'v1.41'],
  ] as const)('OTEL_SEMCONV_STABILITY_OPT_IN=%j gives %s', (optIn, conventions) => {
    expect(conventionsOf(optIn)).toBe(conventions);
  });
});

describe('captureContentOf', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['true', true],
    ['TRUE', true],
    [' True ', true],
    ['1', false],
    ['yes', false],
    ['false', false],
  ] as const)('%j is %s', (value, on) => {
    expect(captureContentOf(value)).toBe(on);
  });
});

describe('resolveGenAiOptions', () => {
  it('defaults to v1.41 without content, and takes a boolean as it is', () => {
    expect(resolveGenAiOptions()).toEqual({ conventions: 'v1.41', captureContent: false });
    expect(resolveGenAiOptions({ semconvOptIn: 'gen_ai_latest_experimental', captureContent: true })).toEqual({ conventions: 'latest', captureContent: true });
  });

  it('reaches the runtime options from the environment, through the one schema of the environment', () => {
    expect(runtimeOptionsFromEnv({}).genAi).toEqual({ conventions: 'v1.41', captureContent: false });
    const env = { OTEL_SEMCONV_STABILITY_OPT_IN: 'gen_ai_latest_experimental', OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' };
    expect(runtimeOptionsFromEnv(env).genAi).toEqual({ conventions: 'latest', captureContent: true });
  });
});
