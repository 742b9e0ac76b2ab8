import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { historyReportSchema } from '@tierflow/runtime/admin';
import { redisClient, startRedisServer, uniquePrefix, type RedisServer } from '@tierflow/testing';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAclRedis, tierflow, type AclRedis } from '../security/tier-processes.js';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { attempts, writeHistory } from '../support/history.js';

// `tierflow stats` as a separate process, over history written by real decayed adds through Beads
// (what the Monitor folds from a run's learning records): the table, the JSON report, one task
// type, no history, several cells, and the client's Redis user; then over the history four tier
// processes kept of the runs they ran.

const SHADOW = { mode: 'shadow', reason: 'fixed', fixed: 'careful-coder', learned: 'quick-coder', expected_gain: -0.2 } as const;

/** A task type two specialists served (one over-confident, through a model), shadow routing recorded, and another task type. */
const RECORDS = [
  ...attempts(10, 9, { task_type: 'code_generation', specialist: 'careful-coder', routing: SHADOW }),
  ...attempts(10, 4, { task_type: 'code_generation', specialist: 'quick-coder', model: 'tiny-model', confidence: 0.95 }).map((record, index) => ({ ...record, surprise: index >= 8 })),
  ...attempts(3, 3, { task_type: 'summarise', specialist: 'summariser' }),
];

let server: RedisServer;
let redis: Redis;

beforeAll(async () => {
  server = await startRedisServer();
  redis = redisClient(server.url);
});

afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

const envOf = (prefix: string, more: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ REDIS_URL: server.url, TIERFLOW_PREFIX: prefix, ...more });

describe('tierflow stats', () => {
  it('prints a table per task type: each specialist and model, success, calibration, latency, tokens, cost, surprises; routing and bottlenecks', async () => {
    const prefix = uniquePrefix('stats');
    await writeHistory(redis, prefix, RECORDS, Date.now());
    const { code, stdout, stderr } = await tierflow(['stats'], envOf(prefix));
    expect(code, stderr).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toMatch(/^history of 2 task types \(counts decayed, half-life 24 h\)\n/);
    expect(stdout).toContain('task type code_generation\n  SPECIALIST     MODEL       SAMPLES  SUCCESS  CALIBRATION              P50');
    expect(stdout).toMatch(/\n {2}careful-coder {14}10 {7}90% {6}ECE 0\.00 calibrated {6}\d\.\d s +\d\.\d s +400 +\$0\.001 +-\n/);
    expect(stdout).toMatch(/\n {2}quick-coder {16}10 {7}40% {6}ECE 0\.55 over-confident +\d\.\d s +\d\.\d s +400 +\$0\.001 +2\n/);
    expect(stdout).toMatch(/\n {17}tiny-model {2}10 {7}40% {6}ECE 0\.55 over-confident/);
    expect(stdout).toContain('  routing: 10 routed, the first choice succeeded in 90%; shadow: learned routing would have chosen otherwise in 10 of 10, expected gain -0.20\n');
    expect(stdout).toMatch(/task type summarise\n.*\n {2}summariser {9}3 {8}100%/);
    expect(stdout).toMatch(/\n\nbottlenecks\n {2}slow {8}code_generation \/ (careful|quick)-coder: p95 \d\.\d s over 10 samples\n/);
    expect(stdout).toContain('  unreliable  code_generation / quick-coder: success 40% over 10 samples\n');
  });

  it('prints the history report as JSON with --json, and one task type with --task-type', async () => {
    const prefix = uniquePrefix('stats');
    await writeHistory(redis, prefix, RECORDS, Date.now());
    const [json, one, none] = await Promise.all([
      tierflow(['stats', '--json'], envOf(prefix)),
      tierflow(['stats', '--task-type', 'summarise', '--json'], envOf(prefix)),
      tierflow(['stats', '--task-type', 'translate'], envOf(prefix)),
    ]);
    expect(json.code, json.stderr).toBe(0);
    const report = historyReportSchema.parse(JSON.parse(json.stdout));
    expect(report.task_types.map((type) => type.task_type)).toEqual(['code_generation', 'summarise']);
    const [careful, quick] = report.task_types[0]!.specialists;
    expect(careful).toMatchObject({ specialist: 'careful-coder', models: [] });
    expect(careful!.stats.samples).toBeCloseTo(10, 1);
    expect(careful!.stats.success_rate).toBeCloseTo(0.9, 3);
    expect(quick!.models.map((model) => model.model)).toEqual(['tiny-model']);
    expect(quick!.stats.calibration.ece).toBeCloseTo(0.55, 3);
    expect(quick!.stats.surprises).toBeCloseTo(2, 1);
    expect(report.task_types[0]!.routing?.shadow?.differs).toBeCloseTo(10, 1);
    expect(report.half_life_ms).toBe(86_400_000);

    expect(one.code, one.stderr).toBe(0);
    expect(historyReportSchema.parse(JSON.parse(one.stdout)).task_types.map((type) => type.task_type)).toEqual(['summarise']);
    expect(none).toEqual({ code: 0, stdout: 'no history of task type translate yet\n', stderr: '' });
  });

  it('says in a line that there is no history yet', async () => {
    expect(await tierflow(['stats'], envOf(uniquePrefix('stats')))).toEqual({
      code: 0,
      stdout: 'no history yet: the Monitor learns from each run that finishes (tierflow runs lists them)\n',
      stderr: '',
    });
  });

  it('adds up the history of every cell', async () => {
    const prefix = uniquePrefix('stats');
    const now = Date.now();
    // Two cells' Monitors, each with its own runs of the same specialist: 3 of 4 and 1 of 4 succeeded.
    await writeHistory(redis, prefix.replace('}', ':0}'), attempts(4, 3, { task_type: 'code_generation', specialist: 'careful-coder' }), now);
    await writeHistory(redis, prefix.replace('}', ':1}'), attempts(4, 1, { task_type: 'code_generation', specialist: 'careful-coder' }), now);
    const { code, stdout, stderr } = await tierflow(['stats', '--json'], envOf(prefix, { TIERFLOW_CELLS: '2' }));
    expect(code, stderr).toBe(0);
    const [careful] = historyReportSchema.parse(JSON.parse(stdout)).task_types[0]!.specialists;
    expect(careful!.stats.samples).toBeCloseTo(8, 1);
    expect(careful!.stats.success_rate).toBeCloseTo(0.5, 3);
  });
});

describe('tierflow stats as the client’s Redis user', () => {
  let dir: string;
  let acl: AclRedis;
  const prefix = '{statsacl}';

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tierflow-stats-'));
    acl = await startAclRedis(dir, prefix);
  }, 60_000);

  afterAll(async () => {
    await acl?.server.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('reads the history the Monitor’s user wrote', async () => {
    const monitor = redisClient(acl.urlFor('monitor'));
    try {
      await writeHistory(monitor, prefix, attempts(5, 5, { task_type: 'summarise', specialist: 'summariser' }), Date.now());
    } finally {
      monitor.disconnect();
    }
    const { code, stdout, stderr } = await tierflow(['stats'], { REDIS_URL: acl.urlFor('client'), TIERFLOW_PREFIX: prefix });
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/\n {2}summariser {9}5 {8}100%/);
  });
});

describe('tierflow stats over four tier processes', () => {
  let deployment: Deployment;

  beforeAll(async () => {
    deployment = await startDeployment('stats', { TIERFLOW_LOG: 'silent' });
  }, 60_000);

  afterAll(() => deployment?.stop());

  it('shows what the Monitor learned of the runs the tiers ran', async () => {
    // Three runs of one leaf each, the specialist reporting 0.8 and right every time.
    const roots = await Promise.all(
      [1, 2, 3].map((n) =>
        deployment.client.enqueue({
          objective: `document it, take ${n}`,
          task_data: { plan: { strategy: 'all_success', subtasks: [{ objective: 'document the complexity', task_type: 'write_docs', task_data: { sim: { confidence: 0.8 } } }] } },
        }),
      ),
    );
    for (const rootId of roots) expect((await deployment.client.waitForResult(rootId, { timeoutMs: 30_000 })).payload.status).toBe('success');
    const env = { REDIS_URL: deployment.redis.url, TIERFLOW_PREFIX: deployment.runtime.prefix };
    const [table, json] = await Promise.all([tierflow(['stats', '--task-type', 'write_docs'], env), tierflow(['stats', '--json'], env)]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/task type write_docs\n.*\n {2}sim {16}3 {8}100% {5}ECE 0\.20 under-confident/);
    const report = historyReportSchema.parse(JSON.parse(json.stdout));
    const docs = report.task_types.find((type) => type.task_type === 'write_docs');
    expect(docs?.specialists.map((entry) => entry.specialist)).toEqual(['sim']);
    expect(docs!.specialists[0]!.stats.samples).toBeCloseTo(3, 1);
    expect(docs!.specialists[0]!.stats.latency_ms).not.toBeNull();
  }, 90_000);
});
