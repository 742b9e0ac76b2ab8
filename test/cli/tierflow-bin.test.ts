import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The installed command, as a user runs it from the repository root after `npm install`.
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = join(ROOT, 'node_modules', '.bin', 'tierflow');
const SEED = join(ROOT, 'packages', 'protocol', 'fixtures', 'seed-000');

function tierflow(args: string[], input?: string) {
  return spawnSync(BIN, args, { cwd: ROOT, input, encoding: 'utf8', timeout: 20_000 });
}

describe('the tierflow command', () => {
  it('accepts every complete message example of the protocol', () => {
    const files = readdirSync(SEED).map((file) => join(SEED, file));
    const result = tierflow(['validate', ...files]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout.match(/: valid /g)).toHaveLength(files.length);
  });

  it('rejects a broken variant with a path for each error, exit 1', () => {
    const broken = JSON.stringify({
      version: '1.0.0',
      id: 'msg-1',
      timestamp: '2025-01-15T10:30:00Z',
      source_tier: 'SPECIALIZED_FLEET',
      target_tier: 'ROUTING_DISPATCHER',
      payload: { status: 'success', summary: 'ok', confidence: 1.5, execution_time_ms: 3, artifacts: [{ artifact_type: 'code' }] },
    });
    const result = tierflow(['validate', '-'], broken);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain('$.payload.confidence: must be between 0 and 1');
    expect(result.stdout).toContain('$.payload.artifacts[0]: neither content_ref nor inline_content is set');
  });

  it('exits 2 on input that is not JSON', () => {
    const result = tierflow(['validate', '-'], 'not json');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('<stdin>: not JSON');
  });

  it('prints a JSON Schema', () => {
    const result = tierflow(['schema', 'artifact']);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ type: 'object', required: ['artifact_type'] });
  });
});
