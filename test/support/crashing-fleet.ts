// A Fleet process for tests of poison work. Besides `sim` it serves two specialists:
// - `crash` kills its own process (SIGKILL, as the OOM killer or a native fault would) on every run;
// - `finish-then-crash` succeeds, and its process dies after the run's outcome is recorded
//   (`execution/completions/<id>`) but before the job answers, on every try;
// - `linger` is innocent work that takes a while: it succeeds after LINGER_MS (once ten run
//   together, after `crash-in-company` has come, or COMPANY_LINGER_MS);
// - `crash-in-company` kills its own process too, once COMPANY `linger` runs are in flight beside
//   it (or after COMPANY_WAIT_MS without them, as when it runs alone), so its deaths take them along.
// Run as `node test/dist/support/crashing-fleet.js` with the usual worker environment.
import { BeadsStore } from '@tierflow/beads';
import { defaultRegistry, defineSpecialist, fleetHandler, fleetOptionsFromEnv, publishAgents } from '@tierflow/fleet';
import { connect } from '@tierflow/runtime/admin';
import { consoleLogger, TierWorker, type TierHandler } from '@tierflow/runtime';

const die = (): never => {
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable');
};

const LINGER_MS = 2_000;
const COMPANY = 10;
/** How long runs beside COMPANY - 1 others wait for a `crash-in-company` run to come. */
const COMPANY_LINGER_MS = 15_000;
const COMPANY_WAIT_MS = 1_500;
let lingering = 0;
let poisonCame = false;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const linger = async (): Promise<{ summary: string; confidence: number }> => {
  lingering++;
  process.stderr.write(`lingering ${lingering}\n`);
  const started = Date.now();
  try {
    // LINGER_MS; but once COMPANY are in flight together, until the poison has come to take them along.
    while (Date.now() - started < LINGER_MS || (lingering >= COMPANY && !poisonCame && Date.now() - started < COMPANY_LINGER_MS)) await sleep(20);
    return { summary: 'lingered', confidence: 0.9 };
  } finally {
    lingering--;
  }
};

const crashInCompany = async (): Promise<never> => {
  poisonCame = true;
  const until = Date.now() + COMPANY_WAIT_MS;
  while (lingering < COMPANY && Date.now() < until) await sleep(20);
  process.stderr.write(`crashing with ${lingering} beside\n`);
  return die();
};

const registry = defaultRegistry()
  .register(defineSpecialist({ name: 'crash', version: '1.0.0', run: () => Promise.resolve(die()) }))
  .register(defineSpecialist({ name: 'linger', version: '1.0.0', run: linger }))
  .register(defineSpecialist({ name: 'crash-in-company', version: '1.0.0', run: crashInCompany }))
  .register(defineSpecialist({ name: 'finish-then-crash', version: '1.0.0', run: () => Promise.resolve({ summary: 'finished', confidence: 0.9 }) }));

const inner = fleetHandler(registry, { trackCompletions: true });
const handler: TierHandler = {
  ...inner,
  start: async (context) => {
    const step = await inner.start(context);
    if (context.assignment.payload.specialist_hint === 'finish-then-crash') {
      // A tier's Beads writes wait for the pass's commit; a listing sends them first (they could
      // change what it lists), which is how this process gets its record written before it dies.
      await context.beads.keys('execution/completions/*');
      die();
    }
    return step;
  },
};

const { runtime } = fleetOptionsFromEnv();
const redis = connect(runtime);
await publishAgents(new BeadsStore(redis, { tier: 'SPECIALIZED_FLEET', prefix: runtime.prefix }), registry, Date.now());
redis.disconnect();
const worker = await TierWorker.start({ handler, runtime, log: consoleLogger('fleet') });
process.stderr.write('fleet worker ready\n');
process.once('SIGTERM', () => void worker.close().then(() => process.exit(0)));
