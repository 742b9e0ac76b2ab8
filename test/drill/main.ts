// The kill drill at full size: node test/dist/drill/main.js [roots=500] [seconds=20]
import { runDrill } from './kill-drill.js';

const roots = Number(process.argv[2] ?? 500);
const seconds = Number(process.argv[3] ?? 20);
const report = await runDrill({ roots, workersPerTier: 2, killEveryMs: 1000, killForMs: seconds * 1000, lockDurationMs: 2000, stalledIntervalMs: 1000 });
console.log(JSON.stringify(report, null, 2));
