import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The Restate server the Restate half runs: a release whose wire protocol the SDK in
 * test/package.json speaks. The SDK is pinned to 1.12.0 there, the newest that runs on Node 20
 * (later ones call Promise.withResolvers).
 */
export const RESTATE_SERVER_VERSION = '1.7.12';

/**
 * The path of a restate-server binary: RESTATE_SERVER_BIN when set, else this platform's release
 * package, installed on first use under node_modules/.cache (an 80 MB download, so it is not a
 * dependency of the workspace and CI never fetches it).
 */
export function restateServerBinary(): string {
  const given = process.env.RESTATE_SERVER_BIN;
  if (given) return given;
  const name = `@restatedev/restate-server-${process.platform}-${process.arch}`;
  const dir = resolve(import.meta.dirname, '..', '..', '..', 'node_modules', '.cache', 'tierflow-bench', `restate-server-${RESTATE_SERVER_VERSION}`);
  const binary = join(dir, 'node_modules', name, 'bin', 'restate-server');
  if (!existsSync(binary)) {
    process.stderr.write(`installing ${name}@${RESTATE_SERVER_VERSION} into ${dir} (once)\n`);
    execFileSync('npm', ['install', '--prefix', dir, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `${name}@${RESTATE_SERVER_VERSION}`], { stdio: 'inherit' });
  }
  return binary;
}
