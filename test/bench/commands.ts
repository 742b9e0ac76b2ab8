// What a root costs Redis, command by command, on each side of the bench: every command logged
// (SLOWLOG at 0 µs) while roots run in flight after a warm-up, then counted per root with its
// Redis CPU. Scripts are named: BullMQ's by the SHA of their source, Tierflow's by the key they
// touch first. The profile of where Redis time goes, to choose what to merge or drop.
//   npm run build && node test/dist/bench/commands.js [in-flight=300] [top=30]
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { redisClient } from '@tierflow/testing';
import { startOtlpReceiver, tracingTo } from '../support/otlp-receiver.js';
import type { BenchHalf } from './bench-half.js';
import { startBullmqShape } from './bullmq-shape.js';
import { startTierflowShape } from './tierflow-shape.js';

const [inFlight = 300, top = 30] = process.argv.slice(2).map(Number);

const require = createRequire(import.meta.url);
const bullmqScripts = require('bullmq/dist/cjs/scripts/index.js') as Record<string, { name: string; content: string }>;
const scriptNames = new Map(Object.values(bullmqScripts).map((script) => [createHash('sha1').update(script.content).digest('hex'), `bullmq ${script.name}`]));

/** A command's name for the table: a script by its name, or by the shape of its first key. */
function label(args: readonly string[]): string {
  const command = args[0]!.toLowerCase();
  if (command !== 'evalsha' && command !== 'eval') return command;
  const known = scriptNames.get(args[1] ?? '');
  if (known) return known;
  // Tierflow's own scripts, by their first key without the deployment's hash tag and ids, e.g. `fleet:*:lock`.
  const key = (args[3] ?? '').replace(/^\{[^}]*\}:?/, '').replace(/[0-9a-f]{8}-[0-9a-f-]+[^:]*/g, '*');
  return `script ${(args[1] ?? '').slice(0, 8)} (${key})`;
}

interface Row {
  calls: number;
  micros: number;
}

async function profile(half: BenchHalf): Promise<Map<string, Row>> {
  for (let i = 0; i < 100; i++) await half.finished(await half.enqueue(), 30_000);
  const redis = redisClient(half.redisUrls[0]!);
  try {
    await redis.config('SET', 'slowlog-max-len', String(2_000 * inFlight));
    await redis.slowlog('RESET');
    await redis.config('SET', 'slowlog-log-slower-than', '0');
    const ids = await Promise.all(Array.from({ length: inFlight }, () => half.enqueue()));
    await Promise.all(ids.map((id) => half.finished(id, 600_000)));
    await redis.config('SET', 'slowlog-log-slower-than', '-1');
    const entries = (await redis.slowlog('GET', -1)) as [number, number, number, string[]][];
    const rows = new Map<string, Row>();
    for (const [, , micros, args] of entries) {
      const name = label(args);
      const row = rows.get(name) ?? { calls: 0, micros: 0 };
      row.calls++;
      row.micros += micros;
      rows.set(name, row);
    }
    return rows;
  } finally {
    redis.disconnect();
  }
}

function print(side: string, rows: Map<string, Row>): void {
  const sorted = [...rows].sort((a, b) => b[1].micros - a[1].micros);
  const total = sorted.reduce((sum, [, row]) => ({ calls: sum.calls + row.calls, micros: sum.micros + row.micros }), { calls: 0, micros: 0 });
  console.log(`\n${side}: ${(total.calls / inFlight).toFixed(1)} commands/root, ${(total.micros / inFlight).toFixed(0)} µs/root in commands (SLOWLOG)`);
  console.log(`${'command'.padEnd(56)}${'calls/root'.padStart(11)}${'µs/root'.padStart(9)}${'µs/call'.padStart(9)}`);
  for (const [name, row] of sorted.slice(0, top)) {
    console.log(`${name.slice(0, 55).padEnd(56)}${(row.calls / inFlight).toFixed(2).padStart(11)}${(row.micros / inFlight).toFixed(0).padStart(9)}${(row.micros / row.calls).toFixed(1).padStart(9)}`);
  }
}

const receiver = await startOtlpReceiver({ decodeLater: true });
try {
  const bullmq = await startBullmqShape();
  try {
    print('BullMQ', await profile(bullmq));
  } finally {
    await bullmq.stop();
  }
  const tierflow = await startTierflowShape(tracingTo(receiver));
  try {
    print('Tierflow', await profile(tierflow));
  } finally {
    await tierflow.stop();
  }
} finally {
  await receiver.close();
}
