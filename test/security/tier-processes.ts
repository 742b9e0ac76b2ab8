import { randomBytes } from 'node:crypto';
import type { TierSlug } from '@tierflow/protocol';
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { spawnTiers, type TierProcesses } from '@tierflow/cli';
import { waitFor } from '@tierflow/testing';

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

/** A fresh password for each user, and the environment `tierflow acl` reads them from. */
export function aclPasswords(): { readonly passwords: Record<AclUser, string>; readonly env: Record<string, string> } {
  const passwords = Object.fromEntries(ACL_USERS.map((user) => [user, randomBytes(12).toString('hex')])) as Record<AclUser, string>;
  return { passwords, env: Object.fromEntries(ACL_USERS.map((user) => [`TIERFLOW_ACL_PASSWORD_${user.toUpperCase()}`, passwords[user]])) };
}
