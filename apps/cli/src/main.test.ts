import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMain } from './testing/run-main.js';

const dir = mkdtempSync(join(tmpdir(), 'tierflow-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DELEGATION = {
  version: '1.0.0',
  id: 'msg-010',
  timestamp: '2025-01-15T10:30:00Z',
  source_tier: 'ROUTING_DISPATCHER',
  target_tier: 'SPECIALIZED_FLEET',
  correlation_id: 'msg-009',
  payload: { task_type: 'execute_code', objective: 'Write it' },
};

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('tierflow validate', () => {
  it('exits 0 for a valid message and names it', async () => {
    const result = await runMain(['validate', file('ok.json', JSON.stringify(DELEGATION))]);
    expect(result).toMatchObject({ code: 0, err: '' });
    expect(result.out).toContain('valid delegation message msg-010 (ROUTING_DISPATCHER → SPECIALIZED_FLEET, version 1.0.0)');
  });

  it('exits 1 for an invalid message, printing each error with its path', async () => {
    const bad = { ...DELEGATION, target_tier: 'PROGRESS_MONITOR', payload: { ...DELEGATION.payload, priority: 9 } };
    const result = await runMain(['validate', file('bad.json', JSON.stringify(bad))]);
    expect(result.code).toBe(1);
    expect(result.out).toContain('invalid message, 2 errors');
    expect(result.out).toContain('  $.payload.priority: must be between 0 (critical) and 4 (backlog)');
    expect(result.out).toContain('  $.target_tier: a delegation must go down');
  });

  it('exits 2 when the file cannot be read', async () => {
    const result = await runMain(['validate', join(dir, 'missing.json')]);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/missing\.json: cannot read: ENOENT/);
  });

  it('exits 2 when the input is not JSON', async () => {
    const result = await runMain(['validate', file('text.json', 'hello')]);
    expect(result.code).toBe(2);
    expect(result.err).toContain('not JSON');
  });

  it('reads standard input for -', async () => {
    expect((await runMain(['validate', '-'], JSON.stringify(DELEGATION))).code).toBe(0);
    expect((await runMain(['validate', '-'], '{"version":"3.0.0"}')).out).toContain('major version 3 is unknown');
  });

  it('exits with the worst result over several files', async () => {
    const ok = file('a.json', JSON.stringify(DELEGATION));
    expect((await runMain(['validate', ok, file('b.json', '{}')])).code).toBe(1);
    expect((await runMain(['validate', ok, file('c.json', '{')])).code).toBe(2);
  });

  it('prints JSON reports with --json', async () => {
    const result = await runMain(['validate', '--json', '-'], JSON.stringify({ ...DELEGATION, id: 'a:b' }));
    expect(JSON.parse(result.out)).toMatchObject({ status: 'invalid', errors: [{ path: '$.id', code: 'invalid_format' }] });
  });
});

describe('tierflow schema', () => {
  it('prints the message schema by default', async () => {
    const result = await runMain(['schema']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toMatchObject({ title: 'Message', anyOf: expect.any(Array) as unknown });
  });

  it('prints a named type', async () => {
    const schema = JSON.parse((await runMain(['schema', 'outcome-status'])).out) as { enum: string[] };
    expect(schema.enum).toHaveLength(8);
  });

  it('lists the types', async () => {
    expect((await runMain(['schema', '--list'])).out.split('\n')).toContain('aggregated-outcome');
  });

  it('exits 2 for an unknown type, naming the known ones', async () => {
    const result = await runMain(['schema', 'nope']);
    expect(result.code).toBe(2);
    expect(result.err).toContain('unknown type "nope"; the types are: message,');
  });
});

describe('tierflow', () => {
  it('exits 2 on an unknown command', async () => {
    const result = await runMain(['bogus']);
    expect(result.code).toBe(2);
    expect(result.err).toContain("unknown command 'bogus'");
  });

  it('exits 0 for --help', async () => {
    const result = await runMain(['--help']);
    expect(result.code).toBe(0);
    expect(result.out).toContain('validate');
  });
});
