import { randomBytes } from 'node:crypto';
import type { TierSlug } from '@tierflow/protocol';
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { spawnTiers, type TierProcesses } from '@tierflow/cli';
import { startRedisServer, waitFor, type RedisServer } from '@tierflow/testing';

export const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'apps', 'cli', 'bin', 'tierflow.js');
const TIERS: readonly TierSlug[] = ['monitor', 'architect', 'dispatcher', 'fleet'];

export interface RunningTiers {
  readonly processes: TierProcesses;
  /** Everything the workers printed, for diagnosing a failure. */
  readonly logs: string[];
}

/** The four tiers (or `tiers`) as `tierflow worker` processes with `env`; resolves once each says it is ready. */
export async function startTiers(env: NodeJS.ProcessEnv, tiers: readonly TierSlug[] = TIERS): Promise<RunningTiers> {
  const logs: string[] = [];
  const ready = new Set<TierSlug>();
  // No spans: nothing listens on the default OTLP port here.
  const processes = spawnTiers(
    { ...process.env, OTEL_TRACES_EXPORTER: 'none', ...env },
    (tier, line) => {
      logs.push(`${tier} | ${line}`);
      if (line.includes('worker ready')) ready.add(tier);
    },
    tiers,
  );
  try {
    await waitFor(() => ready.size === tiers.length, { timeoutMs: 20_000, description: `${tiers.join(', ')} ready; output:\n${logs.join('\n')}` });
  } catch (error) {
    await processes.stop();
    throw error;
  }
  return { processes, logs };
}

/** Runs the tierflow command without blocking this process, which must keep reading the workers' output. */
export async function tierflow(args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...args], { env: { ...process.env, OTEL_TRACES_EXPORTER: 'none', ...env }, timeout: 30_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? String(error) };
  }
}

/** The Redis users `tierflow acl print` writes: the admin, the client and the four tiers. */
export const ACL_USERS = ['admin', 'client', 'monitor', 'architect', 'dispatcher', 'fleet'] as const;
export type AclUser = (typeof ACL_USERS)[number];

/** A private redis-server that knows only the users `tierflow acl print` writes for `prefix`, each with a fresh password. */
export interface AclRedis {
  readonly server: RedisServer;
  readonly passwords: Record<AclUser, string>;
  /** The server's URL as `user`, with that user's password. */
  urlFor(user: AclUser): string;
  /** `REDIS_URL_<TIER>` for the four tiers: each logs in as its own user. */
  readonly tierUrls: Record<string, string>;
}

/** Prints the ACL file for `prefix` into `dir` with the `tierflow` command, and starts a redis-server on it. */
export async function startAclRedis(dir: string, prefix: string): Promise<AclRedis> {
  const passwords = Object.fromEntries(ACL_USERS.map((user) => [user, randomBytes(12).toString('hex')])) as Record<AclUser, string>;
  const passwordEnv = Object.fromEntries(ACL_USERS.map((user) => [`TIERFLOW_ACL_PASSWORD_${user.toUpperCase()}`, passwords[user]]));
  const printed = await tierflow(['acl', 'print', '--prefix', prefix], passwordEnv);
  if (printed.code !== 0 || printed.stderr !== '') throw new Error(`tierflow acl print failed (${printed.code}): ${printed.stderr}`);
  await writeFile(join(dir, 'users.acl'), printed.stdout);
  const server = await startRedisServer({ aclFile: join(dir, 'users.acl') });
  const urlFor = (user: AclUser): string => server.url.replace('redis://', `redis://${user}:${passwords[user]}@`);
  const tierUrls = Object.fromEntries(TIERS.map((tier) => [`REDIS_URL_${tier.toUpperCase()}`, urlFor(tier)]));
  return { server, passwords, urlFor, tierUrls };
}
