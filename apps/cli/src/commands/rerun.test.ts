import { describe, expect, it } from 'vitest';
import { runMain } from '../testing/run-main.js';

// What `tierflow rerun` refuses before it connects: the rerun itself is tested over real workers (test/runtime/rerun.test.ts).
describe('tierflow rerun', () => {
  it('needs a run to rerun: a root id or --from-file, not both', async () => {
    for (const argv of [['rerun'], ['rerun', 'some-root', '--from-file', 'run.json']]) {
      const { code, err } = await runMain(argv);
      expect(code).toBe(2);
      expect(err).toContain('either its root id or --from-file <file>, not both');
    }
  });

  it('takes --replay alone, or with a mode it knows', async () => {
    const { code, err } = await runMain(['rerun', 'some-root', '--replay=sometimes']);
    expect(code).toBe(2);
    expect(err).toContain('must be one of off, loose, strict (as --replay=strict)');
  });

  it('refuses a file that is not an exported run, or one of another version', async () => {
    const notRun = await runMain(['rerun', '--from-file', '-'], JSON.stringify({ objective: 'x' }));
    expect(notRun).toMatchObject({ code: 2, err: expect.stringContaining('not an exported run') as string });
    const later = await runMain(['rerun', '--from-file', '-'], JSON.stringify({ format: 'tierflow-run', version: 7 }));
    expect(later).toMatchObject({ code: 2, err: expect.stringContaining('an exported run of version 7; this Tierflow reads version 1') as string });
    const broken = await runMain(['rerun', '--from-file', '-'], '{');
    expect(broken.code).toBe(2);
  });

  it('is listed with runs export in the help', async () => {
    expect((await runMain(['--help'])).out).toMatch(/rerun \[options\] \[root-id\]/);
    expect((await runMain(['runs', '--help'])).out).toContain('export');
  });
});
