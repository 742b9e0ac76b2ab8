import { describe, expect, it } from 'vitest';
import { runtimeOptionsFromEnv } from './options.js';
import { readTierflowEnv, readTierflowVars } from './tierflow-env.js';

// Every whole-number variable a deployment may set, with its smallest accepted value.
const WHOLE: readonly (readonly [string, number])[] = [
  ['TIERFLOW_LOCK_DURATION_MS', 1_000],
  ['TIERFLOW_STALLED_INTERVAL_MS', 100],
  ['TIERFLOW_KEEP_FINISHED_MS', 1],
  ['TIERFLOW_DEDUP_TTL_MS', 1],
  ['TIERFLOW_BEADS_TTL_MS', 1],
  ['TIERFLOW_AUDIT_TTL_MS', 1],
  ['TIERFLOW_RETRY_ATTEMPTS', 1],
  ['TIERFLOW_RETRY_BASE_MS', 1],
  ['TIERFLOW_RETRY_MAX_MS', 200],
  ['TIERFLOW_MAX_CRASHES', 1],
  ['TIERFLOW_MAX_CLOCK_SKEW_MS', 1],
  ['TIERFLOW_CONCURRENCY', 1],
  ['TIERFLOW_ARCHITECT_TIMEOUT_MS', 1],
  ['TIERFLOW_DISPATCHER_TIMEOUT_MS', 1],
  ['TIERFLOW_FLEET_TIMEOUT_MS', 1],
  ['TIERFLOW_SIM_MAX_CONCURRENT', 1],
  ['FLEET_CONCURRENCY', 1],
  ['FLEET_OUTPUT_TTL_MS', 1],
  ['TIERFLOW_MAX_OBJECTIVE_BYTES', 1_024],
  ['TIERFLOW_MAX_SUBTASKS', 1],
];

// 1e3, hex and padded numbers are refused: Number() reads them, but a setting is written as it is meant.
const NOT_WHOLE = ['-1', '1.5', 'abc', '1e3', '0x10', ' 5', '5 ', '+5', 'Infinity', '99999999999999999999'];

function problemOf(env: NodeJS.ProcessEnv): string {
  try {
    runtimeOptionsFromEnv(env);
  } catch (error) {
    expect(error).toMatchObject({ code: 'invalid_config' });
    return (error as Error).message;
  }
  throw new Error(`${JSON.stringify(env)} was accepted`);
}

describe('whole-number variables', () => {
  it.each(WHOLE)('%s refuses 0, negatives, fractions, text, exponents and huge values, naming itself', (name, least) => {
    for (const bad of ['0', ...NOT_WHOLE]) {
      expect(problemOf({ [name]: bad })).toContain(`${name}=${JSON.stringify(bad)}: must be a whole number`);
    }
    expect(problemOf({ [name]: String(least - 1) })).toMatch(new RegExp(`${name}="${least - 1}": must be .*at least \\D*${least}\\b`));
  });

  it.each(WHOLE)('%s accepts its least value, and an empty value as unset', (name, least) => {
    expect(() => runtimeOptionsFromEnv({ [name]: String(least) })).not.toThrow();
    expect(() => runtimeOptionsFromEnv({ [name]: '' })).not.toThrow();
  });

  it('says what each kind of number is', () => {
    expect(problemOf({ TIERFLOW_LOCK_DURATION_MS: '0' })).toContain('TIERFLOW_LOCK_DURATION_MS="0": must be a whole number of milliseconds, at least 1000');
    expect(problemOf({ TIERFLOW_MAX_CRASHES: '0' })).toContain('TIERFLOW_MAX_CRASHES="0": must be a whole number, at least 1');
    expect(problemOf({ TIERFLOW_MAX_OBJECTIVE_BYTES: '10' })).toContain('TIERFLOW_MAX_OBJECTIVE_BYTES="10": must be a whole number of bytes, at least 1024');
  });

  it('keeps timers within what Node can wait for', () => {
    expect(problemOf({ TIERFLOW_LOCK_DURATION_MS: '2147483648' })).toContain('at most 2147483647');
    expect(() => runtimeOptionsFromEnv({ TIERFLOW_LOCK_DURATION_MS: '2147483647' })).not.toThrow();
  });
});

describe('the cascade bounds', () => {
  it.each(['-0.1', '1.5', 'high', '1e-1', '.', '0.5.5'])('refuse %j', (bad) => {
    expect(problemOf({ TIERFLOW_CASCADE_REVIEW: bad })).toContain(`TIERFLOW_CASCADE_REVIEW=${JSON.stringify(bad)}: must be a number from 0 to 1`);
  });

  it('accept numbers from 0 to 1 in order, and refuse them out of order naming the variable', () => {
    expect(runtimeOptionsFromEnv({ TIERFLOW_CASCADE_PROCEED: '1', TIERFLOW_CASCADE_FLAG: '.5', TIERFLOW_CASCADE_REVIEW: '0' }).cascade).toEqual({ proceed: 1, flag: 0.5, review: 0 });
    expect(problemOf({ TIERFLOW_CASCADE_FLAG: '0.9' })).toContain('TIERFLOW_CASCADE_FLAG="0.9": must be at most TIERFLOW_CASCADE_PROCEED (0.8');
  });

  it('TIERFLOW_CASCADE_CHECK is on or off', () => {
    expect(runtimeOptionsFromEnv({ TIERFLOW_CASCADE_CHECK: 'off' }).cascade).toBeNull();
    expect(runtimeOptionsFromEnv({ TIERFLOW_CASCADE_CHECK: 'on' }).cascade).not.toBeNull();
    expect(problemOf({ TIERFLOW_CASCADE_CHECK: 'false' })).toContain('TIERFLOW_CASCADE_CHECK="false": must be one of on, off');
  });

  it('TIERFLOW_CALIBRATION is on or off, and on when unset; TIERFLOW_HISTORY_HALF_LIFE_MS is a second to ten years', () => {
    expect(runtimeOptionsFromEnv({}).calibration).toBe(true);
    expect(runtimeOptionsFromEnv({ TIERFLOW_CALIBRATION: 'off' }).calibration).toBe(false);
    expect(runtimeOptionsFromEnv({ TIERFLOW_CALIBRATION: 'on' }).calibration).toBe(true);
    expect(problemOf({ TIERFLOW_CALIBRATION: 'no' })).toContain('TIERFLOW_CALIBRATION="no": must be one of on, off');
    expect(readTierflowEnv({}).TIERFLOW_HISTORY_HALF_LIFE_MS).toBeUndefined();
    expect(readTierflowEnv({ TIERFLOW_HISTORY_HALF_LIFE_MS: '3600000' }).TIERFLOW_HISTORY_HALF_LIFE_MS).toBe(3_600_000);
    expect(problemOf({ TIERFLOW_HISTORY_HALF_LIFE_MS: '10' })).toContain('TIERFLOW_HISTORY_HALF_LIFE_MS="10": must be a whole number of milliseconds, at least 1000');
  });
});

describe('reading the environment', () => {
  it('names every bad variable at once, one problem each', () => {
    const message = problemOf({ TIERFLOW_LOCK_DURATION_MS: '0', TIERFLOW_CONCURRENCY: 'abc', TIERFLOW_CASCADE_FLAG: '2', TIERFLOW_PREFIX: 'no-tag' });
    for (const name of ['TIERFLOW_LOCK_DURATION_MS="0"', 'TIERFLOW_CONCURRENCY="abc"', 'TIERFLOW_CASCADE_FLAG="2"', 'TIERFLOW_PREFIX="no-tag"']) {
      expect(message.split(name)).toHaveLength(2);
    }
  });

  it('refuses a retry cap below the base delay', () => {
    expect(problemOf({ TIERFLOW_RETRY_BASE_MS: '500', TIERFLOW_RETRY_MAX_MS: '400' })).toContain('TIERFLOW_RETRY_MAX_MS="400": must be at least TIERFLOW_RETRY_BASE_MS (500)');
  });
});

describe('readTierflowVars', () => {
  it('reads only the variables named, with the same checks and defaults', () => {
    const env = { TIERFLOW_LOCK_DURATION_MS: '0', TIERFLOW_LOG: 'silent', JAEGER_URL: 'http://jaeger:16686' };
    expect(readTierflowVars(env, ['TIERFLOW_LOG', 'JAEGER_URL', 'TIERFLOW_PREFIX'])).toEqual({ TIERFLOW_LOG: 'silent', JAEGER_URL: 'http://jaeger:16686', TIERFLOW_PREFIX: '{tierflow}' });
    expect(() => readTierflowVars({ TIERFLOW_LOG: 'loud' }, ['TIERFLOW_LOG'])).toThrow(/TIERFLOW_LOG="loud"/);
    expect(() => readTierflowVars({ ADMIN_REDIS_URL: 'http://x' }, ['ADMIN_REDIS_URL'])).toThrow(/ADMIN_REDIS_URL/);
    expect(readTierflowVars({ OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1', OPENAI_API_KEY: '' }, ['OPENAI_BASE_URL', 'OPENAI_API_KEY'])).toEqual({ OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1' });
  });

  it('takes OPENAI_BASE_URL only as an http(s) URL, naming the variable otherwise', () => {
    expect(readTierflowVars({ OPENAI_BASE_URL: 'https://api.example.com/v1' }, ['OPENAI_BASE_URL'])).toEqual({ OPENAI_BASE_URL: 'https://api.example.com/v1' });
    for (const bad of ['localhost:8000/v1', '127.0.0.1:8000', 'ftp://host/v1', 'http//host/v1', 'not a url']) {
      // A value that does not parse as a URL is not shown: where its password would be cannot be told.
      expect(() => readTierflowVars({ OPENAI_BASE_URL: bad }, ['OPENAI_BASE_URL'])).toThrow(/OPENAI_BASE_URL="[^"]*": must be an http:\/\/ or https:\/\/ URL/);
    }
  });
});
