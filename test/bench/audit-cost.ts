// What the audit trail costs Redis per root, on the benchmark shape (root → 1 → 1 → 3 leaves):
// every command is watched with MONITOR on a private Redis, and those on audit streams counted.
//   npm run build && node test/dist/bench/audit-cost.js [roots=50]
import { redisClient } from '@tierflow/testing';
import { startDeployment } from '../support/deployment.js';
import { countersSince, redisCounters } from './redis-stats.js';
import { benchObjective } from './shape.js';

const roots = Number(process.argv[2] ?? 50);
const deployment = await startDeployment('bench-audit', { TIERFLOW_LOG: 'silent' });
const watcher = redisClient(deployment.redis.url);
const monitor = await watcher.monitor();
const auditPrefix = `${deployment.runtime.prefix}:audit:`;
const counts = new Map<string, number>();
let all = 0;
let watching = false;
monitor.on('monitor', (_time: string, args: string[]) => {
  if (!watching) return;
  all += 1;
  if (args[1]?.startsWith(auditPrefix)) counts.set(args[0]!.toLowerCase(), (counts.get(args[0]!.toLowerCase()) ?? 0) + 1);
});

try {
  // Warm up first, so connecting and loading scripts are not counted.
  await deployment.client.waitForResult(await deployment.client.enqueue(benchObjective), { timeoutMs: 20_000 });
  watching = true;
  const before = await redisCounters(watcher);
  for (let i = 0; i < roots; i++) {
    const outcome = await deployment.client.waitForResult(await deployment.client.enqueue(benchObjective), { timeoutMs: 20_000 });
    if (outcome.payload.status !== 'success') throw new Error(`root ended ${outcome.payload.status}`);
  }
  const spent = countersSince(before, await redisCounters(watcher));
  watching = false;
  const audit = [...counts.values()].reduce((sum, count) => sum + count, 0);
  const perRoot = (count: number): string => (count / roots).toFixed(1);
  console.log(`${roots} roots, 3 leaves each`);
  for (const [command, count] of [...counts].sort()) console.log(`  ${command.padEnd(8)} ${perRoot(count)} per root`);
  console.log(`  audit    ${perRoot(audit)} per root, of ${perRoot(all)} commands Redis ran (MONITOR, inside scripts too): ${((100 * audit) / all).toFixed(1)}%`);
  console.log(`  INFO     ${perRoot(spent.commands)} commands per root by INFO`);
} finally {
  monitor.disconnect();
  watcher.disconnect();
  await deployment.stop();
}
