import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scrapeConfig } from '../support/prometheus.js';

const infra = (path: string): string => new URL(`../../infra/${path}`, import.meta.url).pathname;
const promtool = ['/usr/bin/promtool', ...(process.env.PATH ?? '').split(':').map((dir) => join(dir, 'promtool'))].find((path) => {
  try {
    execFileSync(path, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
});
if (!promtool) console.warn('promtool not found (Debian’s prometheus package has it; .ci/run installs it): the scrape configs are not checked here');

describe.runIf(promtool)('the Prometheus scrape configs, checked by promtool', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tierflow-promtool-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const check = (config: string): string => execFileSync(promtool!, ['check', 'config', config], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

  it('infra/prometheus/prometheus.yml is valid (with the token file it names beside it)', () => {
    copyFileSync(infra('prometheus/prometheus.yml'), join(dir, 'prometheus.yml'));
    writeFileSync(join(dir, 'tierflow-token'), 'a-token-of-16-chars-or-more');
    expect(check(join(dir, 'prometheus.yml'))).toContain('SUCCESS');
  });

  it('the test harness’s config is valid', () => {
    const { yaml, tokenFiles } = scrapeConfig([{ job: 'tierflow', address: '127.0.0.1:8080', bearerToken: 'a-token-of-16-chars-or-more' }], dir, 1);
    for (const [file, token] of tokenFiles) writeFileSync(file, token);
    writeFileSync(join(dir, 'harness.yml'), yaml);
    expect(check(join(dir, 'harness.yml'))).toContain('SUCCESS');
  });
});
