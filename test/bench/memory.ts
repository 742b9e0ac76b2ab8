// Redis memory over a long run: 10 waves of 1,000 roots with short retention (finished jobs,
// Beads entries and de-duplication records kept 10 s), used_memory printed after each wave.
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
});
const redis = redisClient(deployment.redis.url);
const usedMemory = async (): Promise<string> => {
  const info = await redis.info('memory');
  const bytes = Number(/used_memory:(\d+)/.exec(info)?.[1]);
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB, ${await redis.dbsize()} keys`;
};
try {
  console.log(`before: ${await usedMemory()}`);
  for (let wave = 1; wave <= waves; wave++) {
    const ids = await Promise.all(Array.from({ length: perWave }, () => deployment.client.enqueue(objective)));
    await Promise.all(ids.map((id) => deployment.client.waitForResult(id, { timeoutMs: 300_000 })));
    console.log(`after ${wave * perWave} roots: ${await usedMemory()}`);
  }
} finally {
  redis.disconnect();
  await deployment.stop();
}
