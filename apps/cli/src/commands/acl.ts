import { connect, readTierflowVars, redactUrl, redisUrlProblem } from '@tierflow/runtime/admin';
import { applyAcl } from '../acl/acl-apply.js';
import { aclFileText } from '../acl/acl-file.js';
import { aclPasswordsFromEnv, passwordVariable } from '../acl/acl-passwords.js';
import { ACL_USERS } from '../acl/acl-users.js';
import { EXIT, type CliIo } from '../io.js';

export interface AclOptions {
  readonly prefix?: string;
  readonly adminUrl?: string;
  readonly save?: boolean;
}

/**
 * `tierflow acl print | apply`: the Redis users of a deployment (one per tier, `client`,
 * `admin`; `default` disabled), as an ACL file on standard output, or applied to a server over
 * an admin connection (--admin-url, else ADMIN_REDIS_URL). Passwords come from
 * TIERFLOW_ACL_PASSWORD_<USER>, and only their hashes are written or sent.
 */
export async function aclCommand(action: string, options: AclOptions, io: CliIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const settings = readTierflowVars(env, ['TIERFLOW_PREFIX', 'TIERFLOW_CELLS', 'ADMIN_REDIS_URL']);
  const prefix = options.prefix ?? settings.TIERFLOW_PREFIX;
  const passwords = aclPasswordsFromEnv(env);
  if (action === 'print') {
    let text: string;
    try {
      text = aclFileText(prefix, passwords, settings.TIERFLOW_CELLS);
    } catch (error) {
      io.stderr(`${(error as Error).message}\n`);
      return EXIT.unusable;
    }
    io.stdout(text);
    const missing = ACL_USERS.filter((user) => passwords[user] === undefined);
    if (missing.length > 0) io.stderr(`off, without a password: ${missing.join(', ')} (set ${missing.map(passwordVariable).join(', ')})\n`);
    return EXIT.ok;
  }
  if (action !== 'apply') {
    io.stderr(`unknown action "${action}"; expected print or apply\n`);
    return EXIT.unusable;
  }
  const url = options.adminUrl ?? settings.ADMIN_REDIS_URL;
  if (!url) {
    io.stderr('tierflow acl apply needs an admin connection: --admin-url or ADMIN_REDIS_URL\n');
    return EXIT.unusable;
  }
  const problem = redisUrlProblem(url);
  if (problem) {
    io.stderr(`the admin connection ${redactUrl(url)} ${problem}\n`);
    return EXIT.unusable;
  }
  // A one-off command: give up on the first connection error rather than retry for ever.
  const redis = connect(url, () => undefined);
  const failed = new Promise<never>((_, reject) => redis.once('error', reject));
  try {
    const report = await Promise.race([applyAcl(redis, prefix, passwords, { save: options.save ?? false, cells: settings.TIERFLOW_CELLS }), failed]);
    io.stdout(report.map((line) => `${line}\n`).join(''));
    return EXIT.ok;
  } catch (error) {
    io.stderr(`acl apply: ${(error as Error).message}\n`);
    return EXIT.invalid;
  } finally {
    redis.disconnect();
  }
}
