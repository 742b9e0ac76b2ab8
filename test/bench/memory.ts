// Redis memory over a long run: 10 waves of 1,000 roots with short retention (finished jobs,
// Beads entries, de-duplication records and audit trails kept 10 s), used_memory printed after
// each wave, then what is left once retention has lapsed.
//   npm run build && node test/dist/bench/memory.js [waves=10] [roots-per-wave=1000]
import type { ObjectiveFile } from '@tierflow/runtime';
import { redisClient } from '@tierflow/testing';
import { startDeployment } from '../support/deployment.js';

const waves = Number(process.argv[2] ?? 10);
const perWave = Number(process.argv[3] ?? 1000);
const objective: ObjectiveFile = {
  objective: 'memory',
  task_data: { plan: { strategy: 'all_success', subtasks: [1, 2, 3].map((index) => ({ objective: `subtask ${index}`, task_data: { sim: {} } })) } },
};

const deployment = await startDeployment('bench-memory', {
  TIERFLOW_LOG: 'silent',
  TIERFLOW_KEEP_FINISHED_MS: '10000',
  TIERFLOW_BEADS_TTL_MS: '10000',
  TIERFLOW_DEDUP_TTL_MS: '10000',
  TIERFLOW_AUDIT_TTL_MS: '10000',
});
const redis = redisClient(deployment.redis.url);
const usedMemory = async (): Promise<string> => {
  const info = await redis.info('memory');
  const bytes = Number(/used_memory:(\d+)/.exec(info)?.[1]);
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB, ${await redis.dbsize()} keys`;
};
// Keys grouped by shape (ids replaced by *) with their memory, largest first: where the bytes are.
const keyCensus = async (): Promise<string> => {
  const groups = new Map<string, { keys: number; bytes: number }>();
  for await (const batch of redis.scanStream({ count: 1000 }) as AsyncIterable<string[]>) {
    for (const key of batch) {
      const shape = key
        .replace(/\{[^}]*\}/, '{prefix}')
        .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}[^:/]*/g, '<id>')
        .replace(/:\d+$/, ':N');
      const group = groups.get(shape) ?? { keys: 0, bytes: 0 };
      group.keys += 1;
      group.bytes += (await redis.memory('USAGE', key)) ?? 0;
      groups.set(shape, group);
    }
  }
  return [...groups.entries()]
    .sort((a, b) => b[1].bytes - a[1].bytes)
    .slice(0, 15)
    .map(([shape, { keys, bytes }]) => `  ${shape}: ${keys} keys, ${(bytes / 1024).toFixed(0)} KiB`)
    .join('\n');
};
try {
  console.log(`before: ${await usedMemory()}`);
  for (let wave = 1; wave <= waves; wave++) {
    const ids = await Promise.all(Array.from({ length: perWave }, () => deployment.client.enqueue(objective)));
    await Promise.all(ids.map((id) => deployment.client.waitForResult(id, { timeoutMs: 300_000 })));
    console.log(`after ${wave * perWave} roots: ${await usedMemory()}`);
  }
  console.log(await keyCensus());
  // Finished jobs are removed by age when later jobs finish: let retention lapse, then run one more root.
  await new Promise((resolve) => setTimeout(resolve, 11_000));
  await deployment.client.waitForResult(await deployment.client.enqueue(objective), { timeoutMs: 30_000 });
  console.log(`retention lapsed, one more root: ${await usedMemory()}`);
  console.log(await keyCensus());
} finally {
  redis.disconnect();
  await deployment.stop();
}
