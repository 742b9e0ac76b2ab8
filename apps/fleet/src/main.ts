// The Fleet process: `node apps/fleet/dist/main.js`. Library users call startFleetWorker instead.
import { isTierflowError } from '@tierflow/protocol';
import { configProblems } from '@tierflow/runtime/admin';
import { consoleLogger } from '@tierflow/runtime';
import { fleetOptionsFromEnv } from './fleet-env.js';
import { startFleetWorker } from './start-fleet.js';

const log = consoleLogger('fleet');
try {
  const worker = await startFleetWorker({ ...fleetOptionsFromEnv(), log });
  const stop = (signal: NodeJS.Signals): void => {
    log.info('stopping', { signal });
    // close() lets running specialists finish; a second signal exits at once.
    process.once(signal, () => process.exit(1));
    worker.close().then(
      () => process.exit(0),
      (error: unknown) => {
        log.warn('close failed', { error: String(error) });
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
} catch (error) {
  const problems = configProblems(error);
  if (problems) {
    // Printed whatever TIERFLOW_LOG says, and exit 2 as `tierflow worker` does: it cannot run as configured.
    process.stderr.write(`fleet: invalid configuration\n${problems.map((problem) => `  ${problem}\n`).join('')}`);
    process.exit(2);
  }
  log.warn('fleet failed to start', { error: isTierflowError(error) ? error.message : String(error) });
  process.exit(1);
}
