import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { runMain } from '../testing/run-main.js';

const dir = mkdtempSync(join(tmpdir(), 'tierflow-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.unstubAllEnvs());

const PROJECT = join(dir, 'tierflow.config.json');
writeFileSync(
  PROJECT,
  JSON.stringify({
    specialists: [{ kind: 'llm', name: 'writer', model: 'python-lora' }],
    models: { baseURL: 'http://models.internal:8000/v1' },
    budget: { max_llm_calls: 20 },
    routing: { code: ['writer', 'sim'], mode: 'learned', objective: 'cost' },
  }),
);

/** An environment of the test's own: every Tierflow variable the host may have set is cleared first. */
function environment(vars: Record<string, string>): void {
  for (const name of Object.keys(process.env)) if (/^(REDIS_URL|TIERFLOW_|OPENAI_|ADMIN_REDIS_URL|JAEGER_URL|FLEET_)/.test(name)) vi.stubEnv(name, '');
  for (const [name, value] of Object.entries(vars)) vi.stubEnv(name, value);
}

describe('tierflow config', () => {
  it('prints each setting with its value and where it came from, secrets hidden', async () => {
    environment({ REDIS_URL: 'redis://ops:s3cret-pass@db.internal:6380', OPENAI_API_KEY: 'sk-live-s3cret', TIERFLOW_API_TOKEN: 'token-s3cret-0123456789', TIERFLOW_CELLS: '2' });
    const { code, out, err } = await runMain(['config', '--config', PROJECT]);
    expect([code, err]).toEqual([0, '']);
    expect(out).toMatch(/^project file +--config +\S*tierflow\.config\.json$/m);
    expect(out).toMatch(/^REDIS_URL +env +redis:\/\/ops:\*\*\*@db\.internal:6380$/m);
    expect(out).toMatch(/^TIERFLOW_CELLS +env +2$/m);
    expect(out).toMatch(/^TIERFLOW_PREFIX +default +\{tierflow\}$/m);
    expect(out).toMatch(/^TIERFLOW_KEYS_DIR +unset +-$/m);
    expect(out).toMatch(/^OPENAI_API_KEY +env +\(set, not shown\)$/m);
    expect(out).toMatch(/^TIERFLOW_API_TOKEN +env +\(set, not shown\)$/m);
    expect(out).toMatch(/^model endpoint +project file +http:\/\/models\.internal:8000\/v1$/m);
    expect(out).toMatch(/^budget +project file +\{"max_llm_calls":20\}$/m);
    expect(out).toMatch(/^specialists +project file +writer \(llm\), sim \(built in\)$/m);
    expect(out).toMatch(/^routing +project file +\{"code":\["writer","sim"\]\}$/m);
    expect(out).toMatch(/^routing\.mode +project file +learned$/m);
    expect(out).toMatch(/^routing\.objective +project file +cost, weight 0\.5$/m);
    expect(out).toMatch(/^routing\.exploration +default +0\.2$/m);
    expect(out).not.toContain('s3cret');
  });

  it('says where the endpoint comes from without a project file, and that there is none', async () => {
    environment({ OPENAI_BASE_URL: 'https://user:pw-s3cret@llm.example/v1' });
    const { code, out } = await runMain(['config', '--config', join(dir, 'nothing-here.json')]).then(async (missing) => {
      // A --config that names no file is refused, as by `up`.
      expect(missing.code).toBe(2);
      return runMain(['config']);
    });
    expect(code).toBe(0);
    expect(out).toMatch(/^project file +default +none$/m);
    expect(out).toMatch(/^model endpoint +env \(OPENAI_BASE_URL\) +https:\/\/user:\*\*\*@llm\.example\/v1$/m);
    expect(out).toMatch(/^specialists +default +sim \(built in\)$/m);
    expect(out).toMatch(/^routing\.mode +default +fixed$/m);
    expect(out).not.toContain('s3cret');
  });

  it('gives the same rows as JSON with --json', async () => {
    environment({ REDIS_URL: 'redis://:s3cret@localhost:6390' });
    const { out } = await runMain(['config', '--json', '--config', PROJECT]);
    const rows = JSON.parse(out) as { name: string; value: string; from: string }[];
    expect(rows).toContainEqual({ name: 'REDIS_URL', value: 'redis://:***@localhost:6390', from: 'env' });
    expect(rows).toContainEqual({ name: 'TIERFLOW_LOG', value: 'info', from: 'default' });
    expect(out).not.toContain('s3cret');
  });

  it('refuses a model with limits of its own at an endpoint that has some, as the workers would (exit 2, both named)', async () => {
    environment({ OPENAI_BASE_URL: 'http://vllm.internal:8000/v1' });
    const file = join(dir, 'conflict.config.json');
    writeFileSync(
      file,
      JSON.stringify({
        specialists: [{ kind: 'llm', name: 'lora-a' }],
        architect: { planner: { kind: 'llm', model: 'planner-model', baseURL: 'http://other:9000/v1' } },
        models: { limits: { 'lora-a': { rpm: 60 }, 'http://vllm.internal:8000/v1': { concurrent: 8 }, 'planner-model': { rpm: 10 } } },
      }),
    );
    const { code, err } = await runMain(['config', '--config', file]);
    expect(code).toBe(2);
    expect(err).toContain('lora-a has limits of its own and so has its endpoint http://vllm.internal:8000/v1');
    // The planner's model is at another endpoint, which has none: no conflict for it.
    expect(err).not.toContain('planner-model');
  });

  it('refuses a specialist naming a tool the file does not have, or an MCP server it does not declare (exit 2)', async () => {
    environment({});
    const file = join(dir, 'tools.config.json');
    writeFileSync(
      file,
      JSON.stringify({ mcp: { notes: { command: 'node', args: ['notes.mjs'] } }, specialists: [{ kind: 'llm', name: 'librarian', tools: ['mcp:notes/*', 'mcp:web/fetch', 'count_words'] }] }),
    );
    const { code, err } = await runMain(['config', '--config', file]);
    expect(code).toBe(2);
    expect(err).toContain('specialists[0].tools: mcp:web/fetch: no MCP server "web" in the project\'s mcp section');
    expect(err).toContain("specialists[0].tools: count_words: no tool of that name in the project's tools");
    expect(err).not.toContain('mcp:notes/*');
  });
});
