import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promptHashOf } from '@tierflow/fleet';
import { readAuditTrail } from '@tierflow/runtime/admin';
import { redisClient } from '@tierflow/testing';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { runCommand } from '../support/run-command.js';

// Governed handoffs (docs/operations.md#governed-handoffs), over the real `tierflow` command, the
// four tier processes and a private Redis: the lock file `tierflow lock` writes, a worker that
// refuses to start when its agent differs from it, and at run time an agent whose prompt changed
// after locking refused, blocked, and reconciled by `tierflow lock --accept`.

const ECHO = `export default {
  name: 'echo',
  version: '1.0.0',
  config: { prompt: process.env.ECHO_PROMPT ?? 'unset' },
  run: async ({ objective }) => ({ summary: 'echoed: ' + objective, confidence: 1 }),
};
`;

let dir: string;
let config: string;
let required: string;
let lockFile: string;
let deployment: Deployment | undefined;
let redis: Redis | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tierflow-agent-lock-'));
  await writeFile(join(dir, 'echo.mjs'), ECHO);
  // Governed, not required: each tier names itself and pins the tier below to the lock.
  const project = { specialists: [{ kind: 'module', module: './echo.mjs' }], routing: { echo: ['echo'] }, governance: { lock: 'tierflow.lock.json' } };
  config = join(dir, 'tierflow.config.json');
  await writeFile(config, JSON.stringify(project));
  // The same agents, governed: the same lock file beside it.
  required = join(dir, 'required.config.json');
  await writeFile(required, JSON.stringify({ ...project, governance: { require: true } }));
  lockFile = join(dir, 'tierflow.lock.json');
});

afterAll(async () => {
  redis?.disconnect();
  await deployment?.stop();
  await rm(dir, { recursive: true, force: true });
});

const echoPlan = (objective: string) => ({ objective, task_data: { plan: { strategy: 'all_success' as const, subtasks: [{ objective, task_type: 'echo' }] } } });

/** The error types of the Fleet's outcomes on a run's trail, in order. */
async function fleetErrors(rootId: string): Promise<string[]> {
  const trail = await readAuditTrail(redis!, deployment!.runtime.prefix, rootId);
  return trail.filter((record) => record.kind === 'outcome' && record.from === 'SPECIALIZED_FLEET' && record.direction === 'sent').map((record) => record.detail);
}

describe('the agent lock', () => {
  it('`tierflow lock` writes the lock file, and `--check` passes, then lists what changed', async () => {
    const wrote = await runCommand(['lock', '--config', config], { ECHO_PROMPT: 'v1' });
    expect(wrote.output).toContain('wrote');
    expect(wrote.status).toBe(0);
    const lock = JSON.parse(await readFile(lockFile, 'utf8')) as { lockfileVersion: number; agents: Record<string, { type: string; version: string; prompt_hash: string }> };
    expect(lock.lockfileVersion).toBe(1);
    expect(Object.keys(lock.agents)).toEqual(['architect', 'dispatcher', 'echo', 'fleet', 'monitor', 'sim']);
    expect(lock.agents['echo']).toEqual({ type: 'domain', version: '1.0.0', prompt_hash: promptHashOf({ prompt: 'v1' }) });
    expect(lock.agents['monitor']?.type).toBe('orchestrator');

    const inStep = await runCommand(['lock', '--check', '--config', config], { ECHO_PROMPT: 'v1' });
    expect(inStep.output).toContain('in step');
    expect(inStep.status).toBe(0);
    const changed = await runCommand(['lock', '--check', '--config', config], { ECHO_PROMPT: 'v2' });
    expect(changed.output).toContain('echo: prompt hash differs');
    expect(changed.status).toBe(1);
  }, 60_000);

  it('under governance.require, a fleet worker whose specialist changed after locking refuses to start, naming it', async () => {
    const refused = await runCommand(['worker', 'fleet', '--config', required], { ECHO_PROMPT: 'v2' });
    expect(refused.output).toContain('echo: prompt hash differs');
    expect(refused.output).toContain('tierflow lock --accept echo');
    expect(refused.status).toBe(2);
    // So does `tierflow up`, before starting any worker.
    const up = await runCommand(['up', '--config', required], { ECHO_PROMPT: 'v2' });
    expect(up.output).toContain('echo: prompt hash differs');
    expect(up.status).toBe(2);
  }, 60_000);

  it('at run time, refuses the changed agent, blocks it until `tierflow lock --accept`, then runs it', async () => {
    // Not required: the workers start, warned; the Dispatcher pins what the lock says.
    deployment = await startDeployment('agent-lock', { TIERFLOW_LOG: 'silent', TIERFLOW_CONFIG: config, ECHO_PROMPT: 'v2' });
    redis = redisClient(deployment.redis.url);
    const { client } = deployment;

    const first = await client.enqueue(echoPlan('first'));
    expect((await client.waitForResult(first, { timeoutMs: 30_000 })).payload.status).toBe('failed');
    expect((await fleetErrors(first))[0]).toBe('agent_hash_mismatch');
    const findings = (await readAuditTrail(redis, deployment.runtime.prefix, first)).filter((record) => record.kind === 'security');
    expect(findings).toEqual([expect.objectContaining({ from: 'SPECIALIZED_FLEET', status: 'flagged', data: { kind: 'agent_hash_mismatch', severity: 'high' } })]);

    // Blocked now: the next run is refused at once, nothing run.
    const second = await client.enqueue(echoPlan('second'));
    const refused = await client.waitForResult(second, { timeoutMs: 30_000 });
    expect(refused.payload.status).toBe('failed');
    const errors = await fleetErrors(second);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((error) => error === 'agent_blocked')).toBe(true);

    const accepted = await runCommand(['lock', '--accept', 'echo', '--config', config], { ECHO_PROMPT: 'v2', REDIS_URL: deployment.redis.url, TIERFLOW_PREFIX: deployment.runtime.prefix });
    expect(accepted.output).toContain('echo: prompt hash differs');
    expect(accepted.output).toContain(`lifted the block on echo`);
    expect(accepted.output).toContain(`found by run ${first}`);
    expect(accepted.status).toBe(0);
    const lock = JSON.parse(await readFile(lockFile, 'utf8')) as { agents: Record<string, { prompt_hash: string }> };
    expect(lock.agents['echo']?.prompt_hash).toBe(promptHashOf({ prompt: 'v2' }));

    const third = await client.enqueue(echoPlan('third'));
    const done = await client.waitForResult(third, { timeoutMs: 30_000 });
    expect(done.payload.status, `logs:\n${deployment.logs.join('\n')}`).toBe('success');
    expect(await fleetErrors(third)).toEqual(['']);
  }, 120_000);

  it('pins each tier to the lock too: an Architect the lock does not describe refuses its work, flagged, until accepted', async () => {
    const { client } = deployment!;
    // The lock now says the Architect's planner is another one than it runs: the Monitor, reading
    // the changed file, pins the Architect to that.
    const lock = JSON.parse(await readFile(lockFile, 'utf8')) as { agents: Record<string, { prompt_hash: string }> };
    const runs = lock.agents['architect']!.prompt_hash;
    lock.agents['architect']!.prompt_hash = 'f'.repeat(64);
    await writeFile(lockFile, `${JSON.stringify(lock, null, 2)}\n`);

    const pinned = await client.enqueue(echoPlan('pinned'));
    const outcome = await client.waitForResult(pinned, { timeoutMs: 30_000 });
    expect(outcome.payload.status).toBe('failed');
    const trail = await readAuditTrail(redis!, deployment!.runtime.prefix, pinned);
    expect(trail).toContainEqual(expect.objectContaining({ kind: 'outcome', from: 'ABSTRACT_ARCHITECT', direction: 'sent', detail: 'agent_hash_mismatch' }));
    expect(trail.filter((record) => record.kind === 'security')).toEqual([expect.objectContaining({ from: 'ABSTRACT_ARCHITECT', data: { kind: 'agent_hash_mismatch', severity: 'high' } })]);
    // Nothing below the Architect ran.
    expect(trail.some((record) => record.to === 'ROUTING_DISPATCHER')).toBe(false);
    const delegation = trail.find((record) => record.kind === 'delegation' && record.direction === 'sent' && record.to === 'ABSTRACT_ARCHITECT');
    expect(delegation?.data?.attestation).toMatchObject({ target: { tier: 'ABSTRACT_ARCHITECT', agent: { agent_id: 'architect', prompt_hash: 'f'.repeat(64) }, verified_by: 'pin' } });

    const accepted = await runCommand(['lock', '--accept', 'architect', '--config', config], { ECHO_PROMPT: 'v2', REDIS_URL: deployment!.redis.url, TIERFLOW_PREFIX: deployment!.runtime.prefix });
    expect(accepted.status).toBe(0);
    expect((JSON.parse(await readFile(lockFile, 'utf8')) as typeof lock).agents['architect']?.prompt_hash).toBe(runs);
    const after = await client.enqueue(echoPlan('after'));
    expect((await client.waitForResult(after, { timeoutMs: 30_000 })).payload.status).toBe('success');
  }, 120_000);
});
