import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

// Without a results cache (a fresh clone, as in CI) vitest runs the larger files first. The drills
// are small files that run for a minute or more, so they came last and ran alone; first, they
// run beside the rest.
const LONG_RUNNING = /[\\/]test[\\/]drill[\\/]/;
class LongRunningFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const long = (file: TestSpecification): boolean => LONG_RUNNING.test(file.moduleId);
    return [...sorted.filter(long), ...sorted.filter((file) => !long(file))];
  }
}

// Unit tests (beside the code) share their workers' module cache: re-importing the packages for
// every file was most of their time. One that mocks a module needs it fresh, so runs isolated.
// End-to-end tests (test/) start processes and servers of their own, each file isolated.
const MOCKS_MODULES = ['apps/fleet/src/code-runner/no-sandbox.test.ts'];

// The workspace's packages are imported from their built dist/, plain JavaScript: Node loads them
// as it loads node_modules, rather than vitest transforming each file again in every test process.
const WORKSPACE_BUILDS = /[\\/](packages|apps)[\\/][^\\/]+[\\/]dist[\\/]/;

export default defineConfig({
  test: {
    exclude: ['**/node_modules/**', '**/dist/**'],
    server: { deps: { external: [WORKSPACE_BUILDS] } },
    // Tests that spawn processes or talk to Redis wait on events with their own deadlines.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two files at a time, even on two cores (vitest would take one): most of an end-to-end test
    // is waiting on processes, timers and Redis.
    maxWorkers: 2,
    sequence: { sequencer: LongRunningFirst },
    projects: [
      { extends: true, test: { name: 'unit', include: ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts'], exclude: ['**/node_modules/**', '**/dist/**', ...MOCKS_MODULES], isolate: false } },
      { extends: true, test: { name: 'mocks', include: MOCKS_MODULES } },
      { extends: true, test: { name: 'end-to-end', include: ['test/**/*.test.ts'] } },
    ],
  },
});
