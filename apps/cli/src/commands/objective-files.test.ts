import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { objectiveJsonSchema } from '@tierflow/runtime/admin';
import { afterAll, describe, expect, it } from 'vitest';
import { runMain } from '../testing/run-main.js';

const dir = mkdtempSync(join(tmpdir(), 'tierflow-objective-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const EXAMPLE = new URL('../../../../examples/all-success.json', import.meta.url);

function file(name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
}

describe('tierflow validate, given an objective file', () => {
  it('checks it as an objective file and says so', async () => {
    const result = await runMain(['validate', EXAMPLE.pathname]);
    expect(result).toMatchObject({ code: 0, err: '' });
    expect(result.out).toContain('all-success.json: valid objective file (a plan of 3 subtasks, all_success)');
  });

  it('reports an objective file’s errors with their paths, naming the kind it checked', async () => {
    const result = await runMain(['validate', file('typo.json', { objective: 'o', priorty: 1, task_data: { plan: { strategy: 'all_success', subtasks: [] } } })]);
    expect(result.code).toBe(1);
    expect(result.out).toContain('typo.json: invalid objective file, 2 errors');
    expect(result.out).toMatch(/\$\.task_data\.plan\.subtasks: a plan needs at least one subtask/);
    expect(result.out).toMatch(/priorty/);
  });

  it('names the kind in its JSON report', async () => {
    const result = await runMain(['validate', '--json', '-'], JSON.stringify({ objective: 'Say hello' }));
    expect(JSON.parse(result.out)).toMatchObject({ status: 'valid', document: 'objective file' });
  });

  it('still checks a message as a message, and says which kind', async () => {
    const message = {
      version: '1.0.0',
      id: 'msg-010',
      timestamp: '2025-01-15T10:30:00Z',
      source_tier: 'ROUTING_DISPATCHER',
      target_tier: 'SPECIALIZED_FLEET',
      correlation_id: 'msg-009',
      payload: { task_type: 'execute_code', objective: 'Write it' },
    };
    const result = await runMain(['validate', file('message.json', message)]);
    expect(result.out).toContain('valid delegation message msg-010');
    expect((await runMain(['validate', '--json', file('bad-message.json', { ...message, id: 'a:b' })])).out).toContain('"document": "delegation/outcome/cancellation message"');
  });
});

describe('tierflow schema objective', () => {
  it('prints the objective file’s JSON Schema, which allows $schema and refuses unknown fields', async () => {
    const result = await runMain(['schema', 'objective']);
    expect(result.code).toBe(0);
    const schema = JSON.parse(result.out) as { properties: Record<string, unknown>; additionalProperties: boolean; required: string[] };
    expect(schema).toEqual(objectiveJsonSchema());
    expect(schema.required).toEqual(['objective']);
    expect(schema.properties).toHaveProperty('$schema');
    expect(schema.additionalProperties).toBe(false);
  });

  it('is listed among the types', async () => {
    expect((await runMain(['schema', '--list'])).out.split('\n')).toContain('objective');
  });

  it('matches the schema file the examples name', async () => {
    const example = JSON.parse(readFileSync(EXAMPLE, 'utf8')) as { $schema: string };
    const shipped = readFileSync(new URL(example.$schema, EXAMPLE), 'utf8');
    expect((await runMain(['schema', 'objective'])).out).toBe(shipped);
  });
});
