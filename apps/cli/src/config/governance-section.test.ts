import { SpecialistRegistry } from '@tierflow/fleet';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueLines } from './config-issues.js';
import { projectConfigSchema, type ProjectConfigInput } from './config-schema.js';
import { lockedAgentsReader, tierAgent } from './governance.js';
import { DEFAULT_LOCK_FILE, lockFilePath } from './governance-section.js';
import { lockOf, writeLockFile } from './lock-file.js';
import { discoveredSpecialists, tierSetup } from './tier-setup.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tierflow-governance-'));
  await writeFile(join(dir, 'echo.mjs'), 'export default { name: "echo", version: "1", config: { prompt: "p" }, run: async () => ({ summary: "ok", confidence: 1 }) };\n');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const silent = { info: () => undefined, warn: () => undefined };
const parse = (config: ProjectConfigInput) => projectConfigSchema.safeParse(config);

describe('the governance section', () => {
  it('takes agent types and semantic versions, and names the field that is wrong', () => {
    expect(parse({ governance: { require: true, lock: 'agents.lock.json', agents: { echo: { type: 'domain', version: '1.2.3' } } } }).success).toBe(true);
    const bad = parse({ governance: { agents: { echo: { type: 'robot' as 'domain', version: '1.2' } } } });
    expect(bad.success ? [] : issueLines(bad.error.issues)).toEqual([
      'governance.agents.echo.type: must be domain, archetype or orchestrator',
      'governance.agents.echo.version: must be a semantic version such as 1.0.0 (MAJOR.MINOR.PATCH)',
    ]);
  });

  it('finds the lock file beside the project file, or where governance.lock says', () => {
    const config = projectConfigSchema.parse({});
    expect(lockFilePath({ file: join(dir, 'tierflow.config.json'), config })).toBe(join(dir, DEFAULT_LOCK_FILE));
    expect(lockFilePath({ file: join(dir, 'tierflow.config.json'), config: projectConfigSchema.parse({ governance: { lock: 'locks/agents.json' } }) })).toBe(join(dir, 'locks', 'agents.json'));
    expect(lockFilePath({ file: null, config }, '/srv')).toBe(join('/srv', DEFAULT_LOCK_FILE));
  });

  it("gives the Fleet's specialists the versions governance.agents sets", async () => {
    const config = projectConfigSchema.parse({ specialists: [{ kind: 'module', module: './echo.mjs' }], governance: { agents: { echo: { version: '1.0.0' } } } });
    const setup = await tierSetup({ file: join(dir, 'tierflow.config.json'), config }, {});
    expect(setup.specialists.map((specialist) => [specialist.name, specialist.version])).toEqual([['echo', '1.0.0']]);
    expect(typeof setup.dispatcher.lockedAgents).toBe('function');
    await setup.close();
  });

  it("names each tier's own agent from the manifest, for its attestations", () => {
    const project = { file: null, config: projectConfigSchema.parse({ governance: { agents: { monitor: { version: '2.0.0' } } } }) };
    const monitor = tierAgent(project, [], 'monitor');
    expect(monitor).toMatchObject({ agent_id: 'monitor', agent_version: '2.0.0' });
    expect(monitor?.prompt_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(tierAgent(project, [], 'fleet')?.agent_id).toBe('fleet');
  });

  it('discovers no endpoint models under governance.require: they are in no lock', async () => {
    const config = projectConfigSchema.parse({ models: { baseURL: 'http://127.0.0.1:9/v1' }, governance: { require: true } });
    expect(await discoveredSpecialists(config, new SpecialistRegistry(), silent)).toEqual([]);
  });
});

describe("the Dispatcher's reader of the lock file", () => {
  it('reads nothing without a lock file, then the lock, and again once it changes', async () => {
    const file = join(dir, 'reader.lock.json');
    const read = lockedAgentsReader(file, 'reader.lock.json', silent);
    expect((await read()).size).toBe(0);
    const echo = { id: 'echo', type: 'domain' as const, version: '1.0.0', prompt_hash: 'a'.repeat(64) };
    await writeLockFile(file, lockOf({ agents: [echo] }));
    expect((await read()).get('echo')).toEqual({ agent_id: 'echo', agent_version: '1.0.0', prompt_hash: 'a'.repeat(64) });
    await writeLockFile(file, lockOf({ agents: [{ ...echo, version: '1.1.0', prompt_hash: 'b'.repeat(64) }] }));
    expect((await read()).get('echo')).toEqual({ agent_id: 'echo', agent_version: '1.1.0', prompt_hash: 'b'.repeat(64) });
  });
});
