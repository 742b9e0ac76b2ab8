import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { envRedisUrl, envText, envWhole } from './env-values.js';
import { ConfigError, readEnv, shownValue } from './read-env.js';

const schema = z.object({
  COUNT: envWhole({ unit: 'count', min: 1, max: 9 }).default(3),
  SOME_URL: envRedisUrl().optional(),
  NAME: envText().optional(),
});

describe('readEnv', () => {
  it('reads the variables of its schema, fills defaults, takes empty values as unset and ignores the rest', () => {
    expect(readEnv(schema, { COUNT: '', NAME: 'n', OTHER: 'x' })).toEqual({ COUNT: 3, NAME: 'n' });
  });

  it('throws one ConfigError with a line for each bad variable', () => {
    let error: unknown;
    try {
      readEnv(schema, { COUNT: '0', SOME_URL: 'redis://u:12/ss@h' });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ code: 'invalid_config', retryable: false });
    expect((error as ConfigError).problems).toEqual([
      'COUNT="0": must be a whole number, at least 1 and at most 9',
      'SOME_URL="redis://***": has an @ past the host: percent-encode / # ? in the password (%2F %23 %3F)',
    ]);
  });

  it('adds the problems a check across variables finds, once each is valid', () => {
    expect(() => readEnv(schema, { COUNT: '2' }, (value) => (value.COUNT < 5 ? [{ name: 'COUNT', message: 'must be 5 or more here' }] : []))).toThrow(
      'invalid configuration: COUNT="2": must be 5 or more here',
    );
  });
});

describe('shownValue', () => {
  it('redacts URLs, hides passwords and keys, and cuts long values', () => {
    expect(shownValue('REDIS_URL_FLEET', 'redis://fleet:pw@h:1')).toBe('"redis://fleet:***@h:1"');
    expect(shownValue('TIERFLOW_REDIS_PASSWORD', 'pw')).toBe('(not shown)');
    expect(shownValue('TIERFLOW_SIGNING_KEY', 'k')).toBe('(not shown)');
    expect(shownValue('OPENAI_API_KEY', 'sk-secret')).toBe('(not shown)');
    expect(shownValue('TIERFLOW_PREFIX', 'x'.repeat(100))).toBe(JSON.stringify(`${'x'.repeat(80)}…`));
  });
});
