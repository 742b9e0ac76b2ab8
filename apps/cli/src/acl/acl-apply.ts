import { TierflowError } from '@tierflow/protocol';
import type { Redis } from 'ioredis';
import { passwordRule, passwordVariable, type AclPasswords } from './acl-passwords.js';
import { ACL_USERS, aclPermissions, DISABLED_DEFAULT_USER } from './acl-users.js';

export interface AclApplyOptions {
  /** ACL SAVE at the end, for a server started with an ACL file. */
  readonly save?: boolean;
  /** The deployment's cells (TIERFLOW_CELLS): the rules cover every cell's prefix. */
  readonly cells?: number;
}

/**
 * Applies the ACL to a running server over an admin connection, and returns what it did, a line
 * each. Every user gets its permission rules; a user with a password given is reset to it (and
 * on), one without keeps its password and on/off state, so rules can be re-applied without
 * handing out every password again. `default` is disabled last, once this connection no longer
 * depends on it: connected as `default`, the command logs in as `admin` first, so it needs the
 * admin password.
 *
 * @throws Error, before changing anything, when connected as `default` without an admin password.
 */
export async function applyAcl(redis: Redis, prefix: string, passwords: AclPasswords, options: AclApplyOptions = {}): Promise<string[]> {
  const permissions = aclPermissions(prefix, options.cells);
  const whoami = String(await redis.call('ACL', 'WHOAMI'));
  if (whoami === 'default' && passwords.admin === undefined) {
    throw TierflowError.permanent(`connected as the default user, which this disables: set ${passwordVariable('admin')} so the admin user can take over`, { code: 'invalid_config' });
  }
  const report: string[] = [];
  for (const user of ACL_USERS) {
    const password = passwords[user];
    const state = password === undefined ? [] : ['reset', 'on', passwordRule(password)];
    await redis.call('ACL', 'SETUSER', user, ...state, ...permissions[user]);
    report.push(`${user}: rules set, ${password === undefined ? `password unchanged (${passwordVariable(user)} unset)` : 'password set, on'}`);
  }
  if (whoami === 'default') await redis.call('AUTH', 'admin', passwords.admin!);
  await redis.call('ACL', 'SETUSER', 'default', ...DISABLED_DEFAULT_USER);
  report.push('default: off');
  if (options.save) {
    await redis.call('ACL', 'SAVE');
    report.push('saved to the ACL file');
  }
  return report;
}
