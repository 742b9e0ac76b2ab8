import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seedExample } from './test-fixtures.js';
import { MAX_JSON_DEPTH } from './json-depth.js';
import { jsonObjectSchema } from './json.js';
import { formatJsonPath, InvalidMessageError, parseMessage, validate, validateWith } from './validate.js';

type Example = ReturnType<typeof seedExample>;
const DELEGATION = 'dispatcher-to-fleet.json';
const OUTCOME = 'fleet-to-dispatcher.json';
const CANCELLATION = 'architect-cancels-dispatcher.json';

function errorsOf(input: unknown): { path: string; code: string }[] {
  const result = validate(input);
  return result.ok ? [] : result.errors.map(({ path, code }) => ({ path, code }));
}

function mutated(file: string, mutate: (message: Example) => void): Example {
  const message = seedExample(file);
  mutate(message);
  return message;
}

function artifacts(message: Example): Record<string, unknown>[] {
  return message.payload.artifacts as Record<string, unknown>[];
}

describe('validate: broken variants of the protocol examples', () => {
  it.each<[string, string, (message: Example) => void, { path: string; code: string }[]]>([
    ['id missing', DELEGATION, (m) => delete m.id, [{ path: '$.id', code: 'invalid_type' }]],
    ['id with a colon', DELEGATION, (m) => (m.id = 'msg:1'), [{ path: '$.id', code: 'invalid_format' }]],
    ['id all digits', DELEGATION, (m) => (m.id = '12345'), [{ path: '$.id', code: 'invalid_format' }]],
    ['correlation id malformed', DELEGATION, (m) => (m.correlation_id = 'has space'), [{ path: '$.correlation_id', code: 'invalid_format' }]],
    ['timestamp without a zone', DELEGATION, (m) => (m.timestamp = '2025-01-15T10:30:05'), [{ path: '$.timestamp', code: 'invalid_format' }]],
    ['timestamp not a date', DELEGATION, (m) => (m.timestamp = 'yesterday'), [{ path: '$.timestamp', code: 'invalid_format' }]],
    ['version not semver', DELEGATION, (m) => (m.version = 'v1'), [{ path: '$.version', code: 'invalid_format' }]],
    ['unknown tier', DELEGATION, (m) => (m.target_tier = 'INTERN'), [{ path: '$.target_tier', code: 'invalid_value' }]],
    ['tier as a number', DELEGATION, (m) => (m.source_tier = 2), [{ path: '$.source_tier', code: 'invalid_value' }]],
    ['upward delegation', DELEGATION, (m) => ([m.source_tier, m.target_tier] = [m.target_tier, m.source_tier]), [{ path: '$.target_tier', code: 'direction' }]],
    ['sideways delegation', DELEGATION, (m) => (m.target_tier = m.source_tier), [{ path: '$.target_tier', code: 'direction' }]],
    ['downward outcome', OUTCOME, (m) => ([m.source_tier, m.target_tier] = [m.target_tier, m.source_tier]), [{ path: '$.target_tier', code: 'direction' }]],
    ['upward cancellation', CANCELLATION, (m) => ([m.source_tier, m.target_tier] = [m.target_tier, m.source_tier]), [{ path: '$.target_tier', code: 'direction' }]],
    ['priority 5', DELEGATION, (m) => (m.payload.priority = 5), [{ path: '$.payload.priority', code: 'too_big' }]],
    ['priority -1', DELEGATION, (m) => (m.payload.priority = -1), [{ path: '$.payload.priority', code: 'too_small' }]],
    ['priority 1.5', DELEGATION, (m) => (m.payload.priority = 1.5), [{ path: '$.payload.priority', code: 'invalid_type' }]],
    ['timeout 0', DELEGATION, (m) => (m.payload.timeout_ms = 0), [{ path: '$.payload.timeout_ms', code: 'too_small' }]],
    ['negative timeout', DELEGATION, (m) => (m.payload.timeout_ms = -5), [{ path: '$.payload.timeout_ms', code: 'too_small' }]],
    ['empty objective', DELEGATION, (m) => (m.payload.objective = ''), [{ path: '$.payload.objective', code: 'too_small' }]],
    ['context ref not a Beads key', DELEGATION, (m) => (m.payload.context_refs = ['problem-statement']), [{ path: '$.payload.context_refs[0]', code: 'invalid_format' }]],
    ['task_data an array', DELEGATION, (m) => (m.payload.task_data = []), [{ path: '$.payload.task_data', code: 'invalid_type' }]],
    ['confidence 1.2', OUTCOME, (m) => (m.payload.confidence = 1.2), [{ path: '$.payload.confidence', code: 'too_big' }]],
    ['confidence -0.1', OUTCOME, (m) => (m.payload.confidence = -0.1), [{ path: '$.payload.confidence', code: 'too_small' }]],
    ['unknown status', OUTCOME, (m) => (m.payload.status = 'done'), [{ path: '$.payload.status', code: 'invalid_value' }]],
    ['error_type on success', OUTCOME, (m) => (m.payload.error_type = 'oops'), [{ path: '$.payload.error_type', code: 'error_fields' }]],
    ['recoverable on success', OUTCOME, (m) => (m.payload.recoverable = true), [{ path: '$.payload.recoverable', code: 'error_fields' }]],
    ['both artifact contents', OUTCOME, (m) => (artifacts(m)[1]!.content_ref = 'beads:x'), [{ path: '$.payload.artifacts[1].inline_content', code: 'artifact_content' }]],
    ['no artifact content', OUTCOME, (m) => (artifacts(m)[0]!.content_ref = null), [{ path: '$.payload.artifacts[0]', code: 'artifact_content' }]],
    ['inline artifact of 1 KB', OUTCOME, (m) => (artifacts(m)[1]!.inline_content = 'x'.repeat(1024)), [{ path: '$.payload.artifacts[1].inline_content', code: 'inline_limit' }]],
    ['negative execution time', OUTCOME, (m) => (m.payload.execution_time_ms = -1), [{ path: '$.payload.execution_time_ms', code: 'too_small' }]],
    ['cancel target malformed', CANCELLATION, (m) => (m.payload.target_message_id = ''), [{ path: '$.payload.target_message_id', code: 'invalid_format' }]],
    ['payload missing', DELEGATION, (m) => delete (m as Record<string, unknown>).payload, [{ path: '$.payload', code: 'invalid_type' }]],
    ['payload of no known kind', DELEGATION, (m) => (m.payload = { foo: 1 }), [{ path: '$.payload', code: 'unknown_payload' }]],
  ])('%s', (_name, file, mutate, expected) => {
    expect(errorsOf(mutated(file, mutate))).toEqual(expected);
  });

  it('reports every error at once, each with its path', () => {
    const message = mutated(OUTCOME, (m) => {
      m.id = 'bad id';
      m.timestamp = 'soon';
      m.payload.confidence = 7;
      m.payload.error_detail = 'not allowed on success';
      artifacts(m)[0]!.inline_content = 'also set';
      [m.source_tier, m.target_tier] = [m.target_tier, m.source_tier];
    });
    expect(errorsOf(message)).toEqual([
      { path: '$.id', code: 'invalid_format' },
      { path: '$.timestamp', code: 'invalid_format' },
      { path: '$.payload.confidence', code: 'too_big' },
      { path: '$.payload.artifacts[0].inline_content', code: 'artifact_content' },
      { path: '$.payload.error_detail', code: 'error_fields' },
      { path: '$.target_tier', code: 'direction' },
    ]);
  });

  it('says which required fields are missing', () => {
    const result = validate({ payload: { status: 'success' } });
    if (result.ok) throw new Error('expected errors');
    expect(result.errors.map((error) => `${error.path}: ${error.message}`)).toEqual([
      '$.version: missing required field (expected string)',
      '$.id: missing required field (expected string)',
      '$.timestamp: missing required field (expected string)',
      '$.source_tier: missing required field (one of PROGRESS_MONITOR, ABSTRACT_ARCHITECT, ROUTING_DISPATCHER, SPECIALIZED_FLEET)',
      '$.target_tier: missing required field (one of PROGRESS_MONITOR, ABSTRACT_ARCHITECT, ROUTING_DISPATCHER, SPECIALIZED_FLEET)',
      '$.payload.summary: missing required field (expected string)',
      '$.payload.confidence: missing required field (expected number)',
      '$.payload.execution_time_ms: missing required field (expected number)',
    ]);
  });

  it('allows error fields on every status but success, as the aggregated example does with partial', () => {
    for (const status of ['partial', 'failed', 'blocked', 'needs_clarification', 'timeout', 'cancelled', 'throttled']) {
      const message = mutated(OUTCOME, (m) => {
        m.payload.status = status;
        m.payload.error_type = 'x';
        m.payload.error_detail = 'why';
        m.payload.recoverable = false;
      });
      expect(errorsOf(message)).toEqual([]);
    }
  });
});

describe('validate: versions', () => {
  it('rejects an unknown major version with one error naming it', () => {
    const result = validate(
      mutated(DELEGATION, (m) => {
        m.version = '2.0.0';
        m.payload.priority = 99; // judged by 1.x rules it would be wrong, but a 2.x message is not judged by them
      }),
    );
    expect(result).toEqual({
      ok: false,
      errors: [
        {
          path: '$.version',
          code: 'unsupported_version',
          message: 'unsupported protocol version "2.0.0": major version 2 is unknown to this receiver, which reads 1.x',
        },
      ],
    });
  });

  it('rejects major version 0 too', () => {
    expect(errorsOf(mutated(DELEGATION, (m) => (m.version = '0.9.0')))).toEqual([{ path: '$.version', code: 'unsupported_version' }]);
  });

  it('accepts an unknown minor version and keeps its unknown fields through a round trip', () => {
    const original = mutated(OUTCOME, (m) => {
      m.version = '1.7.2';
      m.routing_hints = { region: 'eu' };
      m.payload.cost_usd = 0.03;
      artifacts(m)[0]!.checksum = 'sha256:abc';
    });
    const parsed = parseMessage(original);
    expect(JSON.parse(JSON.stringify(parsed))).toEqual(original);
  });

  it('fills what senders may leave out with the documented defaults', () => {
    const parsed = parseMessage({
      version: '1.0.0',
      id: 'msg-min',
      timestamp: '2025-01-15T10:30:00Z',
      source_tier: 'PROGRESS_MONITOR',
      target_tier: 'ABSTRACT_ARCHITECT',
      payload: { task_type: 'solve', objective: 'Solve it' },
    });
    expect(parsed).toMatchObject({
      correlation_id: null,
      payload: { constraints: [], context_refs: [], priority: 2, timeout_ms: null, deadline_hint: null, specialist_hint: null, task_data: {} },
    });
  });
});

describe('validate: any input', () => {
  it.each<[string, unknown, string]>([
    ['null', null, 'a message must be a JSON object, got null'],
    ['an array', [], 'a message must be a JSON object, got an array'],
    ['a number', 42, 'a message must be a JSON object, got a number'],
    ['broken JSON text', '{"version":', 'not valid JSON'],
  ])('%s gets a clear error at $', (_name, input, message) => {
    const result = validate(input);
    if (result.ok) throw new Error('expected errors');
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]!.path).toBe('$');
    expect(result.errors[0]!.message).toContain(message);
  });

  it('reads JSON text as well as objects', () => {
    const text = JSON.stringify(seedExample(DELEGATION));
    expect(validate(text).ok).toBe(true);
  });

  it('refuses input nested deeper than the limit, naming where, before any schema walks it', () => {
    const depth = 300_000;
    const deep = '['.repeat(depth) + ']'.repeat(depth);
    const text = JSON.stringify(seedExample(DELEGATION)).replace(/"task_data":\{/, `"task_data":{"deep":${deep},`);
    const result = validate(text);
    if (result.ok) throw new Error('expected errors');
    expect(result.errors).toEqual([{ path: expect.stringMatching(/^\$\.payload\.task_data\.deep(\[0\])+$/) as unknown, code: 'too_deep', message: `nested deeper than ${MAX_JSON_DEPTH} levels` }]);
    expect(validateWith(jsonObjectSchema, { a: JSON.parse(deep) as unknown })).toMatchObject({ ok: false, errors: [{ code: 'too_deep' }] });
  });

  it('survives a hostile object', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('boom');
        },
        has() {
          throw new Error('boom');
        },
      },
    );
    const result = validate(hostile);
    expect(result.ok).toBe(false);
  });

  it('never throws, whatever the input', () => {
    fc.assert(
      fc.property(fc.anything({ withBigInt: true, withDate: true, withMap: true, withSet: true, withTypedArray: true, withSparseArray: true }), (input) => {
        const result = validate(input);
        expect(typeof result.ok).toBe('boolean');
      }),
      { numRuns: 500 },
    );
  });

  it('never throws on near-messages: a protocol example with any field replaced by any JSON value', () => {
    const paths = ['version', 'id', 'timestamp', 'source_tier', 'target_tier', 'correlation_id', 'payload'] as const;
    const payloadKeys = ['status', 'summary', 'confidence', 'artifacts', 'error_type', 'recoverable', 'result_refs'] as const;
    fc.assert(
      fc.property(fc.constantFrom(...paths), fc.constantFrom(...payloadKeys), fc.jsonValue(), fc.jsonValue(), (key, payloadKey, a, b) => {
        const message = mutated(OUTCOME, (m) => {
          m.payload[payloadKey] = b;
          (m as Record<string, unknown>)[key] = a;
        });
        const result = validate(message);
        if (!result.ok) for (const error of result.errors) expect(error.path.startsWith('$')).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('parseMessage throws InvalidMessageError carrying every error', () => {
    expect.assertions(3);
    try {
      parseMessage({ version: '1.0.0' });
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidMessageError);
      expect((error as InvalidMessageError).errors.length).toBeGreaterThan(3);
      expect((error as InvalidMessageError).retryable).toBe(false);
    }
  });
});

describe('formatJsonPath', () => {
  it.each<[PropertyKey[], string]>([
    [[], '$'],
    [['payload', 'artifacts', 0, 'inline_content'], '$.payload.artifacts[0].inline_content'],
    [['task_data', 'a key'], '$.task_data["a key"]'],
  ])('%j → %s', (path, expected) => {
    expect(formatJsonPath(path)).toBe(expected);
  });
});
