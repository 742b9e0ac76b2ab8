import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runMain } from './testing/run-main.js';

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

describe('tierflow --version', () => {
  it('prints the package version and exits 0', async () => {
    expect(await runMain(['--version'])).toEqual({ code: 0, out: `${VERSION}\n`, err: '' });
  });
});

describe('tierflow --help', () => {
  it('groups the commands under runs, operations and security', async () => {
    const { code, out } = await runMain(['--help']);
    expect(code).toBe(0);
    const runs = out.indexOf('Runs:');
    const operations = out.indexOf('Operations:');
    const security = out.indexOf('Security:');
    expect([runs, operations, security].every((at) => at > 0)).toBe(true);
    const section = (from: number, to: number): string => out.slice(from, to);
    expect(section(runs, operations)).toMatch(/\n {2}enqueue /);
    expect(section(operations, security)).toMatch(/\n {2}up /);
    expect(section(security, out.length)).toMatch(/\n {2}keys /);
    expect(out).not.toContain('Commands:');
  });

  it('names REDIS_URL and the other variables a newcomer needs', async () => {
    const { out } = await runMain(['--help']);
    expect(out).toMatch(/REDIS_URL +the Redis to use/);
    expect(out).toContain('TIERFLOW_CONFIG');
  });
});

describe('an unknown command', () => {
  it('gets a suggestion and one line, not the whole help, exit 2', async () => {
    const { code, out, err } = await runMain(['stauts']);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toBe("error: unknown command 'stauts'\n(Did you mean one of stats, status?)\ntierflow --help lists the commands\n");
  });

  it('gets no suggestion when nothing is close', async () => {
    const { err } = await runMain(['frobnicate']);
    expect(err).toBe("error: unknown command 'frobnicate'\ntierflow --help lists the commands\n");
  });

  it('a command used wrongly points at its own help', async () => {
    const { code, err } = await runMain(['status']);
    expect(code).toBe(2);
    expect(err).toBe("error: missing required argument 'root-id'\ntierflow status --help shows its usage\n");
  });
});
